import Moonblade

/// The reloads under way: each compiled version staged under a ticket of its own until the store
/// swaps it in, and what each swap did until its reload reports it.
///
/// Concurrent reloads each keep their own ticket, so each decides about migration against the version
/// it replaces, in the store's order. Its own lock: nothing here touches the VM.
final class ReloadCoordinator: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only inside `lock`; the staged plugins hold
    // Lua references, which are only pushed (and released, by `take`) with the VM held.
    private let lock = Lock()
    private var staged: [Int: CompiledPlugin] = [:]
    private var outcomes: [Int: ReloadOutcome] = [:]
    private var lastTicket = 0

    /// Stages `plugin` and returns its ticket.
    func stage(_ plugin: CompiledPlugin) -> Int {
        lock.withLock {
            lastTicket += 1
            staged[lastTicket] = plugin
            return lastTicket
        }
    }

    /// Takes the version staged under `ticket` out, to be swapped in; nil if it was already taken.
    func take(_ ticket: Int) -> CompiledPlugin? {
        lock.withLock { staged.removeValue(forKey: ticket) }
    }

    /// Records what the swap of `ticket` did (nil: nothing, it was rolled back).
    func record(_ outcome: ReloadOutcome?, for ticket: Int) {
        lock.withLock { outcomes[ticket] = outcome }
    }

    /// What the swap of `ticket` did (nil if it never ran), forgetting the ticket. Returns the staged
    /// version if it was never swapped in, for the caller to release with the VM held.
    func finish(_ ticket: Int) -> (outcome: ReloadOutcome?, unused: CompiledPlugin?) {
        lock.withLock { (outcomes.removeValue(forKey: ticket), staged.removeValue(forKey: ticket)) }
    }
}

/// What swapping a reloaded version in did.
struct ReloadOutcome: Sendable {
    /// The version now running.
    let info: PluginInfo
    /// The version `migrate` was run from, when it ran.
    let migratedFrom: Int?
}

extension PluginRuntime {
    /// Compiles the plugin `name` anew from its folder and stages it under a ticket of its own; the
    /// running version is untouched.
    func stageReload(of name: String) throws(PluginError) -> Int {
        try withLua { lua throws(PluginError) in
            guard let current = lua.code.installed[name] else {
                throw PluginError(.unknownItem, plugin: name, message: "no plugin named \(name) is loaded")
            }
            let candidate = try PluginLoader(stack: lua.stack, code: lua.code)
                .compile(from: current.info.directory, replacing: current.info)
            return reloads.stage(candidate)
        }
    }

    /// Swaps the version staged under `ticket` in and, if its version is above the running one and it
    /// has `migrate`, migrates `state`; if the migration fails, puts the earlier version back and throws.
    /// Runs as a state updater, between two dispatches, so concurrent reloads swap in the store's order,
    /// each deciding about migration against the version it replaces.
    func swapIn(ticket: Int, plugin: String, state: S) throws(PluginError) -> S {
        try withLua { lua throws(PluginError) in
            guard let candidate = reloads.take(ticket), let earlier = lua.code.installed[plugin] else {
                return state
            }
            try install(candidate, lua)
            let migrates = candidate.info.version > earlier.info.version && candidate.migrates
            reloads.record(ReloadOutcome(info: candidate.info, migratedFrom: migrates ? earlier.info.version : nil), for: ticket)
            guard migrates else { return state }
            do throws(PluginError) {
                return try runMigration(of: plugin, from: earlier.info.version, on: state, outsideStore: false)
            } catch {
                try install(earlier, lua)
                reloads.record(nil, for: ticket)
                throw error
            }
        }
    }

    /// What the swap of `ticket` did (nil if it never ran), forgetting the ticket.
    func finishReload(_ ticket: Int) -> ReloadOutcome? {
        withLua { _ in reloads.finish(ticket).outcome }
    }
}

/// The state updater that swaps a reloaded plugin in, so the swap has its place in the store's order:
/// items dispatched before it run the old code, items after it the new.
struct PluginSwap<S: State & Codable>: StateUpdater {
    let runtime: PluginRuntime<S>
    let plugin: String
    let ticket: Int

    func updateState(_ state: inout S) throws {
        state = try runtime.swapIn(ticket: ticket, plugin: plugin, state: state)
    }
}

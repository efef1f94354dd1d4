import Moonblade

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
        try withVM { vm throws(PluginError) in
            guard let current = vm.installed[name] else {
                throw PluginError(.unknownItem, plugin: name, message: "no plugin named \(name) is loaded")
            }
            let candidate = try vm.compilePlugin(from: current.info.directory, replacing: current.info)
            vm.lastReloadTicket += 1
            vm.staged[vm.lastReloadTicket] = candidate
            return vm.lastReloadTicket
        }
    }

    /// Swaps the version staged under `ticket` in and, if its version is above the running one and it
    /// has `migrate`, migrates `state`; if the migration fails, puts the earlier version back and throws.
    /// Runs as a state updater, between two dispatches, so concurrent reloads swap in the store's order,
    /// each deciding about migration against the version it replaces.
    func swapIn(ticket: Int, plugin: String, state: S) throws(PluginError) -> S {
        try withVM { vm throws(PluginError) in
            guard let candidate = vm.staged.removeValue(forKey: ticket), let earlier = vm.installed[plugin] else {
                return state
            }
            install(candidate, vm)
            let migrates = candidate.info.version > earlier.info.version && candidate.migrates
            vm.reloadOutcomes[ticket] = ReloadOutcome(
                info: candidate.info, migratedFrom: migrates ? earlier.info.version : nil)
            guard migrates else { return state }
            do throws(PluginError) {
                return try applyUpdater(
                    CompiledPlugin.migrationItem(of: plugin), to: state, payload: .encodable(earlier.info.version))
            } catch {
                install(earlier, vm)
                vm.reloadOutcomes[ticket] = nil
                var failure = error
                failure.plugin = plugin
                failure.item = "\(plugin).migrate"
                throw failure
            }
        }
    }

    /// What the swap of `ticket` did (nil if it never ran), forgetting the ticket.
    func finishReload(_ ticket: Int) -> ReloadOutcome? {
        withVM { vm in
            vm.staged[ticket] = nil
            return vm.reloadOutcomes.removeValue(forKey: ticket)
        }
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

import Moonblade

/// A reload compiled and checked, waiting to be swapped in by the store.
struct ReloadPlan: Sendable {
    let plugin: String
    let fromVersion: Int
    let toVersion: Int
    /// Whether the swap runs the new code's `migrate`: the version rose and there is one.
    let migrates: Bool
}

extension PluginRuntime {
    /// Compiles the plugin `name` anew from its folder and stages it; the running version is untouched.
    func stageReload(of name: String) throws(PluginError) -> ReloadPlan {
        try withVM { vm throws(PluginError) in
            guard let current = vm.installed[name] else {
                throw PluginError(.unknownItem, plugin: name, message: "no plugin named \(name) is loaded")
            }
            let candidate = try vm.compilePlugin(from: current.info.directory, replacing: current.info)
            vm.staged[name] = candidate
            return ReloadPlan(
                plugin: name, fromVersion: current.info.version, toVersion: candidate.info.version,
                migrates: candidate.info.version > current.info.version && candidate.migrates)
        }
    }

    /// Swaps the staged version of the plan's plugin in and runs its migration on `state`; if the
    /// migration fails, puts the earlier version back and throws. Runs as a state updater, between two
    /// dispatches. A plan whose code a later reload already swapped in changes nothing.
    func swapIn(_ plan: ReloadPlan, state: S) throws(PluginError) -> S {
        try withVM { vm throws(PluginError) in
            guard let candidate = vm.staged.removeValue(forKey: plan.plugin), let earlier = vm.installed[plan.plugin]
            else { return state }
            install(candidate, vm)
            guard plan.migrates else { return state }
            do throws(PluginError) {
                return try applyUpdater(
                    CompiledPlugin.migrationItem(of: plan.plugin), to: state, payload: .encodable(plan.fromVersion))
            } catch {
                install(earlier, vm)
                var failure = error
                failure.item = "\(plan.plugin).migrate"
                throw failure
            }
        }
    }
}

/// The state updater that swaps a reloaded plugin in, so the swap has its place in the store's order:
/// items dispatched before it run the old code, items after it the new.
struct PluginSwap<S: State & Codable>: StateUpdater {
    let runtime: PluginRuntime<S>
    let plan: ReloadPlan

    func updateState(_ state: inout S) throws {
        state = try runtime.swapIn(plan, state: state)
    }
}

import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// Fires the `on_start` rules; their items wait in the store's queue until it is ready.
    func dispatchStartRules() {
        withVM { vm in
            for rule in vm.observers {
                guard case .start = rule.trigger else { continue }
                fire(rule, cascadeDepth: 0, vm) { _ in 0 }
            }
        }
    }

    /// Fires the `on_notification` rules for `notification`, their payload functions given `payload`.
    func post(_ notification: String, payload: PluginValue) {
        withVM { vm in
            for rule in vm.observers {
                guard case .notification(let name) = rule.trigger, name == notification else { continue }
                fire(rule, cascadeDepth: 0, vm) { stack in
                    try payload.push(onto: stack, encoder: vm.encoder)
                    return 1
                }
            }
        }
    }

    /// Applies the `on_dispatch` and `on_state_change` rules to an item the store has just handled.
    ///
    /// A rule that fails is reported and skipped; the others still fire and the item stays handled.
    func observe(_ dispatchable: any Dispatchable, old: any State, new: any State, cascadeDepth: Int) {
        let name = name(of: dispatchable)
        lazy var isUpdater = dispatchable is any AnyStateUpdater
        withVM { vm in
            for rule in vm.observers {
                switch rule.trigger {
                case .dispatch(let observed) where observed == name:
                    fire(rule, cascadeDepth: cascadeDepth, vm) { stack in
                        try self.pushEvent(item: name ?? "", dispatchable, old: old, new: new, onto: stack, vm)
                    }
                case .stateChange(let predicate) where isUpdater:
                    if holds(predicate, of: rule, old: old, new: new, vm) {
                        fire(rule, cascadeDepth: cascadeDepth, vm) { stack in
                            try self.pushStates(old, new, onto: stack, vm)
                        }
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Whether the rule's `on_state_change` predicate is true of the change.
    private func holds(_ predicate: LuaReference, of rule: ObserverRule, old: any State, new: any State, _ vm: PluginVM)
        -> Bool
    {
        let stack = vm.activeStack
        let base = stack.top
        defer { stack.top = base }
        do {
            let count = try pushStates(old, new, onto: stack, vm)
            try stack.call(arguments: count, results: 1, function: predicate)
            return stack.boolean(at: -1)
        } catch {
            report(error, in: rule, doing: "on_state_change", vm)
            return false
        }
    }

    /// Dispatches the rule's items, one reaction further down the chain than what triggered it;
    /// `pushArguments` pushes what payload functions are called with.
    private func fire(
        _ rule: ObserverRule, cascadeDepth: Int, _ vm: PluginVM, pushArguments: (LuaStack) throws -> Int32
    ) {
        let cascadeDepth = cascadeDepth + 1
        let stack = vm.activeStack
        for entry in rule.dispatches {
            let base = stack.top
            defer { stack.top = base }
            do {
                try stack.reserve(2)
                switch entry.payload {
                case .none: stack.pushNil()
                case .value(let value): try stack.push(value)
                case .function(let function):
                    try stack.call(arguments: try pushArguments(stack), results: 1, function: function)
                }
                try checkCascade(cascadeDepth, cause: "\(rule.name) dispatching \(entry.item)")
                let item = try makeItem(entry.item, payloadAt: stack.top, of: stack, cascadeDepth: cascadeDepth, vm)
                if let handle = store?.anyDispatch(item, cascadeDepth: cascadeDepth) {
                    reportFailure(of: handle, dispatchedBy: rule, item: entry.item)
                }
            } catch {
                report(error, in: rule, doing: "dispatching \(entry.item)", vm)
                if error is ItemError { return }  // a runaway or a bad name: the rest would fare no better
            }
        }
    }

    /// Pushes `(item, old, new)` for an `on_dispatch` payload function.
    private func pushEvent(
        item name: String, _ dispatchable: any Dispatchable, old: any State, new: any State, onto stack: LuaStack,
        _ vm: PluginVM
    ) throws -> Int32 {
        try vm.pushItemTable(for: dispatchable, name: name, onto: stack)
        return 1 + (try pushStates(old, new, onto: stack, vm))
    }

    /// Pushes the two states as tables.
    private func pushStates(_ old: any State, _ new: any State, onto stack: LuaStack, _ vm: PluginVM) throws -> Int32 {
        try vm.encoder.push(old as! S, onto: stack)
        try vm.encoder.push(new as! S, onto: stack)
        return 2
    }

    /// Logs the failure of an item a rule dispatched, once it has run: nobody else awaits it.
    private func reportFailure(of handle: DispatchHandle<any Sendable>, dispatchedBy rule: ObserverRule, item: String) {
        let logger = logger
        let rule = (name: rule.name, plugin: rule.plugin)
        Task {
            do {
                _ = try await handle.value
            } catch {
                logger.error(
                    "\(item), dispatched by \(rule.name), failed: \(error)",
                    metadata: ["plugin": "\(rule.plugin)", "rule": "\(rule.name)"])
            }
        }
    }

    /// Logs a rule's failure with the plugin and place: nobody awaits a rule, so nobody else would see it.
    private func report(_ error: any Error, in rule: ObserverRule, doing what: String, _ vm: PluginVM) {
        var failure: PluginError = switch error {
        case let error as LuaError: vm.pluginError(error, item: rule.name, plugin: rule.plugin)
        case let error as ItemError:
            PluginError(.runtime, plugin: rule.plugin, item: rule.name, message: error.message, location: rule.location)
        default:
            PluginError(
                .invalidValue, plugin: rule.plugin, item: rule.name, message: "\(error)", location: rule.location,
                underlying: error)
        }
        if failure.location == nil { failure.location = rule.location }
        failure.message = "\(what): \(failure.message)"
        logger.error("\(failure)", metadata: ["plugin": "\(rule.plugin)", "rule": "\(rule.name)"])
    }
}

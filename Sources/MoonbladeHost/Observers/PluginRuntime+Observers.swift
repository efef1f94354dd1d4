import Moonblade
import MoonbladeLua
import MoonbladeResidentState
import Tracing

extension PluginRuntime {
    /// Fires the `on_start` rules; their items wait in the store's queue until it is ready.
    func dispatchStartRules() {
        let (reactions, store) = withLua { lua in
            (
                lua.code.observers.flatMap { rule -> [RuleReaction] in
                    guard case .start = rule.trigger else { return [] }
                    return fire(rule, cascadeDepth: 0, on: lua.stack, lua) { _ in 0 }
                }, lua.store
            )
        }
        dispatch(reactions, to: store)
    }

    /// Fires the `on_notification` rules for `notification`, their payload functions given `payload`.
    func post(_ notification: String, payload: PluginValue) {
        let (reactions, store) = withLua { lua in
            (
                lua.code.observers.flatMap { rule -> [RuleReaction] in
                    guard case .notification(let name) = rule.trigger, name == notification else { return [] }
                    return fire(rule, cascadeDepth: 0, on: lua.stack, lua) { stack in
                        try payload.push(onto: stack, encoder: lua.encoder)
                        return 1
                    }
                }, lua.store
            )
        }
        dispatch(reactions, to: store)
    }

    /// Applies the `on_dispatch` and `on_state_change` rules to the item of `delivery`, which the store
    /// has handled for good (no interceptor can undo its change any more), on the VM's main thread.
    ///
    /// A rule that fails is reported and skipped; the others still fire and the item stays handled.
    func observe(_ delivery: ObservedDelivery, cascadeDepth: Int) {
        let (dispatchable, name, change) = (delivery.item, delivery.name, delivery.change)
        let isUpdater = dispatchable is any AnyStateUpdater
        let (reactions, store) = withLua { lua -> ([RuleReaction], InterceptorContext?) in
            let stack = lua.stack
            let base = stack.top
            defer { stack.top = base }
            // The states are pushed once, below everything else, if a rule may need them: read-only
            // views of the resident versions, which share every table that did not change.
            let needsStates = lua.code.observers.contains { rule in
                switch rule.trigger {
                case .stateChange: isUpdater
                case .dispatch(let observed): observed == name && rule.hasPayloadFunction
                case .start, .notification: false
                }
            }
            if needsStates {
                do {
                    let (before, after) = try residentVersions(of: change, lua)
                    try lua.resident.pushReadOnlyView(of: before, onto: stack)
                    try lua.resident.pushReadOnlyView(of: after, onto: stack)
                } catch {
                    logger.error("observer rules skipped: the state cannot be mapped to Lua: \(error)")
                    return ([], nil)
                }
            }
            func pushStates() throws -> Int32 {
                try stack.reserve(2)
                stack.pushCopy(of: base + 1)
                stack.pushCopy(of: base + 2)
                return 2
            }
            let reactions = lua.code.observers.flatMap { rule -> [RuleReaction] in
                switch rule.trigger {
                case .dispatch(let observed) where observed == name:
                    return fire(rule, cascadeDepth: cascadeDepth, on: stack, lua) { stack in
                        try pushItemTable(for: dispatchable, name: observed, onto: stack, keepingPayload: false, lua)
                        return 1 + (try pushStates())
                    }
                case .stateChange(let predicate) where isUpdater:
                    do {
                        let top = stack.top
                        defer { stack.top = top }
                        let arguments = try pushStates()
                        try lua.vm.withLimits(limits(of: rule.plugin)) { () throws(LuaError) in
                            try stack.call(arguments: arguments, results: 1, function: predicate)
                        }
                        guard stack.boolean(at: -1) else { return [] }
                    } catch {
                        report(error, in: rule, doing: "on_state_change", on: stack, lua)
                        return []
                    }
                    return fire(rule, cascadeDepth: cascadeDepth, on: stack, lua) { _ in try pushStates() }
                default:
                    return []
                }
            }
            return (reactions, lua.store)
        }
        dispatch(reactions, to: store, causedBy: dispatchable)
    }

    /// The resident versions of the state before and after `change`: the ones a Lua updater left when
    /// it made the change, else the states pushed (the new one becomes the resident state).
    private func residentVersions(of change: ObservedChange, _ lua: LuaSide) throws
        -> (before: LuaStateVersion, after: LuaStateVersion)
    {
        let after = try lua.residentVersion(of: change.new as! S, stateVersion: change.newVersion)
        if change.oldVersion == change.newVersion { return (after, after) }
        if let previous = lua.previousVersion, previous.version == change.oldVersion { return (previous, after) }
        return (try lua.resident.version(of: change.old as! S, stamped: change.oldVersion, encoder: lua.encoder), after)
    }

    /// The rule's items, one reaction further down the chain than what triggered it; `pushArguments`
    /// pushes what payload functions are called with.
    private func fire(
        _ rule: ObserverRule, cascadeDepth: Int, on stack: LuaStack, _ lua: LuaSide,
        pushArguments: (LuaStack) throws -> Int32
    ) -> [RuleReaction] {
        let cascadeDepth = cascadeDepth + 1
        var reactions: [RuleReaction] = []
        for entry in rule.dispatches {
            let base = stack.top
            defer { stack.top = base }
            do {
                try checkCascade(cascadeDepth, cause: "\(rule.name) dispatching \(entry.item)")
                try stack.reserve(2)
                switch entry.payload {
                case .none: stack.pushNil()
                case .value(let value): try stack.push(value)
                case .function(let function):
                    let arguments = try pushArguments(stack)
                    try lua.vm.withLimits(limits(of: rule.plugin)) { () throws(LuaError) in
                        try stack.call(arguments: arguments, results: 1, function: function)
                    }
                }
                let item = try makeItem(entry.item, payloadAt: stack.top, of: stack)
                reactions.append(
                    RuleReaction(
                        item: item, cascadeDepth: cascadeDepth, rule: rule.name, plugin: rule.plugin, itemName: entry.item))
            } catch {
                report(error, in: rule, doing: "dispatching \(entry.item)", on: stack, lua)
                if error is ItemError { break }  // a runaway or a bad name: the rest would fare no better
            }
        }
        return reactions
    }

    /// Dispatches what rules made, with the VM released (a store at rest runs them on this thread), and
    /// logs the failure of any of them once it has run: nobody else awaits them.
    private func dispatch(_ reactions: [RuleReaction], to store: InterceptorContext?, causedBy cause: (any Dispatchable)? = nil) {
        guard !reactions.isEmpty, let store else { return }
        let logger = logger
        let pendingReports = pendingReports
        for reaction in reactions {
            let (item, span) = instruments.startingRuleSpan(
                reaction.item, rule: reaction.rule, itemName: reaction.itemName, cause: cause)
            let handle = store.anyDispatch(item, cascadeDepth: reaction.cascadeDepth)
            pendingReports.begin()
            Task {
                defer {
                    span?.end()
                    pendingReports.end()
                }
                do {
                    _ = try await handle.value
                } catch {
                    logger.error(
                        "\(reaction.itemName), dispatched by \(reaction.rule), failed: \(error)",
                        metadata: ["plugin": "\(reaction.plugin)", "rule": "\(reaction.rule)"])
                }
            }
        }
    }

    /// Logs a rule's failure with the plugin and the rule's place: nobody awaits a rule.
    private func report(_ error: any Error, in rule: ObserverRule, doing what: String, on stack: LuaStack, _ lua: LuaSide) {
        var failure: PluginError =
            switch error {
            case let error as LuaError: lua.code.pluginError(error, item: rule.name, plugin: rule.plugin, on: stack)
            case let error as PluginError: error
            case let error as ItemError: PluginError(error.kind, message: error.message, underlying: error)
            default: PluginError(.invalidValue, message: "\(error)", underlying: error)
            }
        failure.plugin = rule.plugin
        failure.item = rule.name
        if failure.location == nil || error is PluginError { failure.location = rule.location }
        failure.message = "\(what): \(failure.message)"
        logger.error("\(failure)", metadata: ["plugin": "\(rule.plugin)", "rule": "\(rule.name)"])
    }
}

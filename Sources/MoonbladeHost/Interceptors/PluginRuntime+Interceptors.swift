import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// The store interceptor that runs the plugins' Lua interceptors (in load order), then their
    /// observer rules; the host puts it after its own Swift interceptors. With `firingStartRules`, the
    /// `on_start` rules fire as the store starts.
    func ruleInterceptor(firingStartRules: Bool) -> StoreInterceptor {
        { context in
            self.attach(to: context)
            if firingStartRules { self.dispatchStartRules() }
            return { next in
                { dispatchable in try self.intercept(dispatchable, context: context, next: next) }
            }
        }
    }

    private func intercept(
        _ dispatchable: any Dispatchable, context: InterceptorContext, next: @escaping StoreInterceptorNext
    ) throws {
        guard let catalog = catalogWithRules else { return try next(dispatchable) }
        let kinds = catalog.rules
        let cascadeDepth = context.cascadeDepth
        // The state is read only for an item some rule can react to: then what it changed comes back.
        let deliver: (any Dispatchable) throws -> ObservedDelivery? = { item in
            let name = catalog.name(of: item)
            // A restored state is no change a rule reacts to (asked only of Swift items, off the Lua path).
            guard kinds.observers, kinds.mayObserve(name, isUpdater: item is any AnyStateUpdater),
                name != nil || !(item is any StateRestoration)
            else {
                try next(item)
                return nil
            }
            let old = context.anyStateWithVersion
            try next(item)
            let new = context.anyStateWithVersion
            let change = ObservedChange(
                old: old.state, oldVersion: old.version, new: new.state, newVersion: new.version)
            return ObservedDelivery(item: item, name: name, change: change)
        }
        guard kinds.interceptors, let name = catalog.name(of: dispatchable) else {
            if let delivery = try deliver(dispatchable) { observe(delivery, cascadeDepth: cascadeDepth) }
            return
        }
        // One transaction: an interceptor failing after its `next` (calling it twice, say) undoes the
        // change that `next` applied, so no listener hears of it, and no rule: they fire once it commits.
        let delivered = DeliveriesHeldBack()
        try context.transaction {
            try withLua { lua in
                try passThroughInterceptors(dispatchable, name: name, cascadeDepth: cascadeDepth, lua, passOn: next) { item in
                    if let delivery = try deliver(item) { delivered.all.append(delivery) }
                }
            }
        }
        for delivery in delivered.all {
            observe(delivery, cascadeDepth: cascadeDepth)
        }
    }

    /// Runs the Lua interceptor chain on `{ name, kind, payload }`; its last `next` delivers the item.
    private func passThroughInterceptors(
        _ dispatchable: any Dispatchable, name: String, cascadeDepth: Int, _ lua: LuaSide,
        passOn: @escaping StoreInterceptorNext, deliver: @escaping (any Dispatchable) throws -> Void
    ) throws {
        guard let interceptors = lua.code.interceptors else { return try deliver(dispatchable) }
        let stack = lua.stack
        let base = stack.top
        defer { stack.top = base }
        try stack.reserve(2)
        let swiftPayload = try pushItemTable(for: dispatchable, name: name, onto: stack, keepingPayload: true, lua)
        let interception = Interception(
            original: dispatchable, name: name, isUpdater: dispatchable is any AnyStateUpdater,
            swiftPayload: swiftPayload, cascadeDepth: cascadeDepth, deliver: deliver, passOn: passOn)
        do {
            try lua.interceptors.run(interceptors, on: stack, for: interception)
        } catch {
            // What the store did with the item (an updater's own error) goes back as it was; an item
            // `next` could not make is the interceptor's error.
            if let underlying = error.underlying, !(underlying is ItemError) { throw underlying }
            throw lua.code.pluginError(error, item: name, plugin: lua.code.plugin(atSource: error.location?.source), on: stack)
        }
    }

    /// The last interceptor's `next(item)`, on the stack of the thread it was called on: turns the
    /// item table back into a store item and delivers it.
    func handOn(_ stack: LuaStack) throws -> Int32 {
        try withLua { lua in
            guard let interception = lua.interceptors.interceptions.last else {
                throw stack.placedError("next can only be called while its interceptor runs", skipping: PluginCode.glueChunks)
            }
            guard stack.rawGet(table: 1, field: "name") == .string, let name = stack.string(at: -1) else {
                throw stack.placedError("next: the item's name must be a string, found \(stack.type(at: -1))", skipping: PluginCode.glueChunks)
            }
            stack.pop()
            stack.rawGet(table: 1, field: "payload")
            let handed: (item: any Dispatchable, inPlace: Bool)
            do throws(ItemError) {
                handed = try handedOn(name, payloadAt: stack.top, of: stack, interception)
            } catch {
                // Placed at the interceptor's call of `next`, which a tail call leaves in place (a C function).
                throw stack.placedError("next: \(error.message)", skipping: PluginCode.glueChunks, underlying: error)
            }
            stack.pop()
            try handed.inPlace ? interception.deliver(handed.item) : interception.passOn(handed.item)
            return 0
        }
    }

    /// What the interceptors hand on: the original item when they changed nothing it carries, the same
    /// kind of item with a new name or payload (in place), or an item of another kind, which the store
    /// re-dispatches (not in place).
    private func handedOn(
        _ name: String, payloadAt index: Int32, of stack: LuaStack, _ interception: Interception
    ) throws(ItemError) -> (item: any Dispatchable, inPlace: Bool) {
        if let payload = interception.swiftPayload, name == interception.name,
            (try? stack.value(at: index, requiringUTF8: true)) == payload
        {
            return (interception.original, true)
        }
        guard let kind = catalog.kind(of: name) else { throw .unknownItem(name) }
        let inPlace = kind.isUpdater == interception.isUpdater
        if inPlace, !kind.isSwift, let original = interception.original as? any LuaItem {
            return (
                original.replaced(
                    by: name, payload: try luaPayload(of: name, at: index, stack), thread: InterceptorThread(stack: stack)),
                true
            )
        }
        // Another kind is re-dispatched: one more reaction in the chain.
        try checkCascade(interception.cascadeDepth + (inPlace ? 0 : 1), cause: "re-dispatching \(interception.name) as \(name)")
        return (try makeItem(name, kind: kind, payloadAt: index, of: stack), inPlace)
    }
}

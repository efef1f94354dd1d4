import Moonblade
import MoonbladeLua

extension PluginRuntime {
    /// The store interceptor that runs the plugins' Lua interceptors (in load order), then their
    /// observer rules; the host puts it after its own Swift interceptors.
    func ruleInterceptor() -> StoreInterceptor {
        { context in
            self.attach(to: context)
            self.dispatchStartRules()
            return { next in
                { dispatchable in try self.intercept(dispatchable, context: context, next: next) }
            }
        }
    }

    private func intercept(
        _ dispatchable: any Dispatchable, context: InterceptorContext, next: @escaping StoreInterceptorNext
    ) throws {
        let kinds = ruleKinds
        guard kinds.interceptors || kinds.observers else { return try next(dispatchable) }
        let cascadeDepth = context.cascadeDepth
        // The state is read, and the VM entered, only for an item some rule can react to.
        let deliver: (any Dispatchable) throws -> Void = { item in
            let name = self.name(of: item)
            guard kinds.observers, kinds.mayObserve(name, isUpdater: item is any AnyStateUpdater) else {
                return try next(item)
            }
            let old = context.getAnyState()
            try next(item)
            self.observe(item, name: name, old: old, new: context.getAnyState(), cascadeDepth: cascadeDepth)
        }
        guard kinds.interceptors, let name = name(of: dispatchable) else { return try deliver(dispatchable) }
        try withVM { vm in
            try passThroughInterceptors(dispatchable, name: name, cascadeDepth: cascadeDepth, vm, deliver: deliver)
        }
    }

    /// Runs the Lua interceptor chain on `{ name, kind, payload }`; its last `next` delivers the item.
    private func passThroughInterceptors(
        _ dispatchable: any Dispatchable, name: String, cascadeDepth: Int, _ vm: PluginVM,
        deliver: @escaping (any Dispatchable) throws -> Void
    ) throws {
        let stack = vm.activeStack
        let base = stack.top
        defer { stack.top = base }
        try stack.reserve(1)
        vm.interceptors.push(onto: stack)
        let swiftPayload = try vm.pushItemTable(for: dispatchable, name: name, onto: stack, keepingPayload: true)
        vm.interceptions.append(
            Interception(
                original: dispatchable, name: name, isUpdater: dispatchable is any AnyStateUpdater,
                swiftPayload: swiftPayload,
                cascadeDepth: cascadeDepth, deliver: deliver))
        defer { vm.interceptions.removeLast() }
        do {
            try stack.call(arguments: 2, function: vm.interceptorChain)
        } catch {
            // What the store did with the item (an updater's own error) goes back as it was.
            if let underlying = error.underlying { throw underlying }
            throw vm.pluginError(error, item: name, plugin: vm.plugin(atSource: error.location?.source))
        }
    }

    /// The last interceptor's `next(item)`: turns the item table back into a store item and delivers it.
    func finishInterception(_ stack: LuaStack, _ vm: PluginVM) throws -> Int32 {
        guard let interception = vm.interceptions.last else {
            throw placedError(stack, "next can only be called while its interceptor runs")
        }
        guard stack.rawGet(table: 1, field: "name") == .string, let name = stack.string(at: -1) else {
            throw placedError(stack, "next: the item's name must be a string, found \(stack.type(at: -1))")
        }
        stack.pop()
        stack.rawGet(table: 1, field: "payload")
        let item: any Dispatchable
        do throws(ItemError) {
            item = try handedOn(name, payloadAt: stack.top, of: stack, interception, vm)
        } catch {
            throw placedError(stack, "next: \(error.message)")
        }
        stack.pop()
        // The store may apply a Lua updater now: on this thread's stack, which may be a coroutine's.
        let outer = vm.activeStack
        vm.activeStack = stack
        defer { vm.activeStack = outer }
        try interception.deliver(item)
        return 0
    }

    /// What the interceptors hand on: the original item when they changed nothing it carries, the same
    /// kind of item with a new name or payload, or an item of another kind that the store re-dispatches.
    private func handedOn(
        _ name: String, payloadAt index: Int32, of stack: LuaStack, _ interception: Interception, _ vm: PluginVM
    ) throws(ItemError) -> any Dispatchable {
        if let payload = interception.swiftPayload, name == interception.name,
            (try? stack.value(at: index)) == payload
        {
            return interception.original
        }
        guard let kind = kind(of: name) else { throw ItemError(message: "no item named \(name) is registered") }
        if kind.isUpdater == interception.isUpdater, !kind.isSwift,
            let original = interception.original as? any LuaItem
        {
            return original.replaced(by: name, payload: try luaPayload(of: name, at: index, stack))
        }
        // Another kind is re-dispatched: one more reaction in the chain.
        let cascadeDepth = interception.cascadeDepth + (kind.isUpdater == interception.isUpdater ? 0 : 1)
        try checkCascade(cascadeDepth, cause: "re-dispatching \(interception.name) as \(name)")
        return try makeItem(name, kind: kind, payloadAt: index, of: stack, vm)
    }
}

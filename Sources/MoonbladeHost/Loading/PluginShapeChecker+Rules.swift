import MoonbladeLua

/// A plugin's interceptors and observer rules, read from its table at load time.
struct PluginRules {
    /// The `interceptors` functions, in order.
    var interceptors: [LuaReference] = []
    var observers: [ObserverRule] = []
}

extension PluginShapeChecker {
    /// Reads and checks the `interceptors` and `observers` of the plugin table at `index`; `items` are
    /// the plugin's own item names, which its rules may refer to.
    func rules(ofTableAt index: Int32, plugin: String, items: Set<String>) throws(PluginError) -> PluginRules {
        var rules = PluginRules()
        try forEachElement(of: "interceptors", inTableAt: index) { position throws(PluginError) in
            guard stack.type(at: -1) == .function else {
                throw failure("interceptors[\(position)] must be a function, found \(describeTop())", near: "interceptors")
            }
            stack.pushCopy(of: -1)
            rules.interceptors.append(stack.popReference())
        }
        try forEachElement(of: "observers", inTableAt: index) { position throws(PluginError) in
            let rule = try observerRule(at: position, plugin: plugin)
            // The plugin's own names are all known now; another plugin's (or a Swift item's) are not.
            if let name = rule.itemNames.first(where: { $0.hasPrefix("\(plugin).") && !items.contains($0) }) {
                throw failure(
                    "\(rule.name) names \(name), but \(plugin) has no such item (it has "
                        + (items.isEmpty ? "none" : items.sorted().joined(separator: ", ")) + ")",
                    line: ruleLine(position))
            }
            rules.observers.append(rule)
        }
        return rules
    }

    /// Calls `body` with each position of the list `field` (absent is fine), its element on top.
    private func forEachElement(
        of field: String, inTableAt index: Int32, _ body: (Int) throws(PluginError) -> Void
    ) throws(PluginError) {
        defer { stack.pop() }
        guard stack.rawGet(table: index, field: field) == .table else { return }  // the shape check saw to the type
        try forEachElement(ofListAt: stack.top, what: field, line: line(near: field), body)
    }

    /// Calls `body` with each position of the list at `list`, its element on top; a key that is not a
    /// position of the list (`{ save = … }`) is an error, not something silently left out.
    private func forEachElement(
        ofListAt list: Int32, what: String, line: Int, _ body: (Int) throws(PluginError) -> Void
    ) throws(PluginError) {
        let count = stack.rawLength(at: list)
        stack.pushNil()
        while stack.next(table: list) {
            guard stack.isInteger(at: -2), let position = stack.integer(at: -2), position >= 1, position <= count else {
                let key = stack.string(at: -2).map { "'\($0)'" } ?? stack.describe(at: -2)
                stack.pop(2)
                throw failure("\(what) must be a list, but has the key \(key)", line: line)
            }
            stack.pop()
        }
        for position in 1..<(count + 1) {
            stack.rawGet(table: list, at: Int64(position))
            defer { stack.pop() }
            try body(position)
        }
    }

    /// The rule at the top of the stack, the `position`th of `observers`.
    private func observerRule(at position: Int, plugin: String) throws(PluginError) -> ObserverRule {
        let what = "observers[\(position)]"
        let near = ruleLine(position)
        guard stack.type(at: -1) == .table else {
            throw failure("\(what) must be a rule table, found \(describeTop())", line: near)
        }
        let rule = stack.top
        var triggers: [(ObserverRule.Trigger, LuaLocation?)] = []
        var dispatches: [ObserverRule.Dispatch]?
        try forEachField(ofTableAt: rule, in: what) { field throws(PluginError) in
            switch (field, stack.type(at: -1)) {
            case ("on_start", .table):
                guard dispatches == nil else {
                    throw failure("\(what) has both an on_start list and a dispatch list; keep one", line: near)
                }
                triggers.append((.start, nil))
                dispatches = try dispatchList(what: "\(what).on_start", line: near)
            case ("on_start", .boolean) where stack.boolean(at: -1):
                triggers.append((.start, nil))
            case ("on_dispatch", .string):
                triggers.append((.dispatch(stack.string(at: -1)!), nil))
            case ("on_notification", .string):
                triggers.append((.notification(stack.string(at: -1)!), nil))
            case ("on_state_change", .function):
                let location = stack.definitionLocation(ofFunctionAt: -1)
                stack.pushCopy(of: -1)
                triggers.append((.stateChange(stack.popReference()), location))
            case ("dispatch", .table):
                guard dispatches == nil else {
                    throw failure("\(what) has both an on_start list and a dispatch list; keep one", line: near)
                }
                dispatches = try dispatchList(what: "\(what).dispatch", line: near)
            case ("on_start", _):
                throw failure("\(what).on_start must be a list of items or true, found \(describeTop())", line: near)
            case ("on_dispatch", _), ("on_notification", _):
                throw failure("\(what).\(field) must be a name, found \(describeTop())", line: near)
            case ("on_state_change", _):
                throw failure("\(what).on_state_change must be a function (old, new), found \(describeTop())", line: near)
            case ("dispatch", _):
                throw failure("\(what).dispatch must be a list of items, found \(describeTop())", line: near)
            default:
                throw failure(
                    "\(what) has an unknown field '\(field)' (a rule has one of on_start, on_dispatch, "
                        + "on_state_change, on_notification, and a dispatch list)", line: near)
            }
        }
        guard triggers.count == 1, let (trigger, location) = triggers.first else {
            throw failure(
                "\(what) must have exactly one of on_start, on_dispatch, on_state_change, on_notification",
                line: near)
        }
        guard let dispatches else {
            throw failure("\(what) has nothing to dispatch: give it a dispatch list", line: near)
        }
        return ObserverRule(
            plugin: plugin, position: position, trigger: trigger, dispatches: dispatches,
            location: location ?? LuaLocation(source: chunkName, line: near))
    }

    /// The entries of the list on top of the stack: `"plugin.item"` or `{ "plugin.item", payload }`,
    /// where the payload is a value or a function that makes it from the event.
    private func dispatchList(what: String, line: Int) throws(PluginError) -> [ObserverRule.Dispatch] {
        var entries: [ObserverRule.Dispatch] = []
        try forEachElement(ofListAt: stack.top, what: what, line: line) { position throws(PluginError) in
            if stack.type(at: -1) == .string {
                entries.append(.init(item: stack.string(at: -1)!, payload: .none))
                return
            }
            let entry = stack.top
            guard stack.type(at: entry) == .table, stack.rawGet(table: entry, at: 1) == .string else {
                if stack.type(at: entry) == .table { stack.pop() }
                throw failure(
                    "\(what)[\(position)] must be an item name or { name, payload }, found \(describeTop())", line: line)
            }
            let name = stack.string(at: -1)!
            stack.pop()
            defer { stack.pop() }
            let payload: ObserverRule.Dispatch.Payload
            switch stack.rawGet(table: entry, at: 2) {
            case .nil:
                payload = .none
            case .function:
                stack.pushCopy(of: -1)
                payload = .function(stack.popReference())
            default:
                do throws(LuaError) {
                    payload = .value(try stack.value(at: -1, requiringUTF8: true))
                } catch {
                    throw failure("\(what)[\(position)] payload: \(error.message)", line: line)
                }
            }
            entries.append(.init(item: name, payload: payload))
        }
        return entries
    }

    /// The line of the `position`th rule: Lua keeps no lines for table fields, so this counts the
    /// lines that hold a rule's trigger, which is right for rules written one per line or more; for a
    /// rule without a trigger, the line of `observers` itself.
    private func ruleLine(_ position: Int) -> Int {
        let triggers = ["on_start", "on_dispatch", "on_state_change", "on_notification"]
        let ruleLines = lines.indices.filter { index in
            triggers.contains { lines[index].contains($0) } && !lines[index].hasPrefix("--")
        }
        if ruleLines.count >= position { return ruleLines[position - 1] + 1 }
        return (lines.firstIndex { $0.hasPrefix("observers") } ?? 0) + 1
    }
}

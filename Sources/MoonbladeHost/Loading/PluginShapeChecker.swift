import MoonbladeLua

/// Checks that what `plugin.lua` returned is a plugin table, naming the line of what is wrong.
struct PluginShapeChecker {
    let stack: LuaStack
    let chunkName: String
    let folder: String
    /// The source's lines without their indentation, to place errors Lua gives no line for.
    let lines: [Substring]

    init(stack: LuaStack, chunkName: String, source: String, folder: String) {
        self.stack = stack
        self.chunkName = chunkName
        self.folder = folder
        lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " || $0 == "\t" } }
    }

    func check(tableAt index: Int32, directory: String) throws(PluginError) -> PluginInfo {
        guard stack.type(at: index) == .table else {
            throw failure("plugin.lua must return a table, but returned \(stack.type(at: index))", near: "return")
        }
        var name = folder
        var version = 1
        try forEachField(ofTableAt: index, in: "the plugin table") { field throws(PluginError) in
            switch field {
            case "name":
                guard let value = stack.string(at: -1), ItemName.isPlugin(value[...]) else {
                    throw failure(
                        "name must be \(ItemName.pluginRule), found \(describeTop())",
                        near: "name")
                }
                name = value
            case "version":
                guard let value = stack.integer(at: -1), let exact = Int(exactly: value) else {
                    throw failure("version must be an integer, found \(describeTop())", near: "version")
                }
                version = exact
            case "migrate":
                guard stack.type(at: -1) == .function else {
                    throw failure("migrate must be a function, found \(describeTop())", near: "migrate")
                }
            case "interceptors", "observers":
                guard stack.type(at: -1) == .table else {
                    throw failure("\(field) must be a table, found \(describeTop())", near: field)
                }
            case "updaters", "side_effects":
                break  // checked below, with their item names
            default:
                throw failure(
                    "unknown field '\(field)' (a plugin has name, version, updaters, side_effects, "
                        + "interceptors, observers, migrate)", near: field)
            }
        }
        let updaters = try functionNames(in: "updaters", ofTableAt: index).map { "\(name).\($0)" }
        let sideEffects = try functionNames(in: "side_effects", ofTableAt: index).map { "\(name).\($0)" }
        if let clash = Set(updaters).intersection(sideEffects).first {
            throw failure(
                "\(clash) is both an updater and a side effect",
                line: line(near: String(clash.dropFirst(name.count + 1)), in: "side_effects"))
        }
        return PluginInfo(
            name: name, version: version, directory: directory, updaters: updaters.sorted(),
            sideEffects: sideEffects.sorted())
    }

    /// The names in the table `field` (absent is fine), each of which must be a function.
    private func functionNames(in field: String, ofTableAt index: Int32) throws(PluginError) -> [String] {
        defer { stack.pop() }
        switch stack.rawGet(table: index, field: field) {
        case .nil: return []
        case .table: break
        default: throw failure("\(field) must be a table of functions, found \(describeTop())", near: field)
        }
        var names: [String] = []
        try forEachField(ofTableAt: stack.top, in: field) { item throws(PluginError) in
            guard stack.type(at: -1) == .function else {
                throw failure("\(field).\(item) must be a function, found \(describeTop())", line: line(near: item, in: field))
            }
            guard ItemName.isItem(item[...]) else {
                throw failure(ItemName.notAnItem("\(field)[\"\(item)\"]"), line: line(near: item, in: field))
            }
            names.append(item)
        }
        return names
    }

    /// Calls `body` with each string key of the table at `index`, its value on top of the stack.
    func forEachField(
        ofTableAt index: Int32, in what: String, _ body: (String) throws(PluginError) -> Void
    ) throws(PluginError) {
        let table = stack.absolute(index)
        stack.pushNil()
        while stack.next(table: table) {
            guard let key = stack.string(at: -2) else {
                let keyType = stack.type(at: -2)
                stack.pop(2)
                throw failure("\(what) may only have string keys, found a \(keyType) key", near: what)
            }
            do throws(PluginError) {
                try body(key)
            } catch {
                stack.pop(2)
                throw error
            }
            stack.pop()
        }
    }

    func describeTop() -> String {
        stack.describe(at: -1)
    }

    /// A shape error, placed at the line of `key =`; see ``line(near:)``.
    func failure(_ message: String, near key: String?) -> PluginError {
        failure(message, line: line(near: key))
    }

    /// The line of `key =` (the last `return` for `"return"`), searched from the line of `parent =` when
    /// given (an item of `updaters`), else 1: Lua keeps no line numbers for table fields, so this is a
    /// best guess, right for ordinary plugins.
    func line(near key: String?, in parent: String? = nil) -> Int {
        guard let key else { return 1 }
        if key == "return" {
            return (lines.lastIndex { $0.hasPrefix("return") } ?? 0) + 1
        }
        let parentIndex = parent.flatMap { parent in lines.firstIndex { Self.assigns(parent, in: $0) } }
        let index =
            lines[(parentIndex ?? 0)...].firstIndex { Self.assigns(key, in: $0) }
            ?? lines.firstIndex { Self.assigns(key, in: $0) } ?? parentIndex  // a key no line shows (`[""]`)
        return (index ?? 0) + 1
    }

    /// Whether `line` sets the field `key` somewhere in it: `key = …` or `["key"] = …`, not `a.key = …`,
    /// `local key = …`, `key == …` or a comment.
    static func assigns(_ key: String, in line: Substring) -> Bool {
        guard !line.hasPrefix("--") else { return false }
        var rest = line
        while let range = rest.range(of: key) {
            let before = line[..<range.lowerBound]
            let after = line[range.upperBound...]
            defer { rest = line[range.upperBound...] }
            var value = after
            if before.hasSuffix("[\"") || before.hasSuffix("['") {
                guard value.dropFirst().hasPrefix("]") else { continue }
                value = value.dropFirst(2)
            } else if let previous = before.last, previous.isLetter || previous.isNumber || previous == "_" || previous == "." {
                continue
            } else if before.hasSuffix("local ") {
                continue
            }
            value = value.drop { $0 == " " || $0 == "\t" }
            if value.hasPrefix("=") && !value.hasPrefix("==") { return true }
        }
        return false
    }

    /// A shape error at `line` of the plugin file.
    func failure(_ message: String, line: Int) -> PluginError {
        PluginError(.shape, plugin: folder, message: message, location: LuaLocation(source: chunkName, line: line))
    }
}

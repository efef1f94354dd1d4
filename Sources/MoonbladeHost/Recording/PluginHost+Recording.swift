import Moonblade
import MoonbladeLua

/// What a recorder (the dispatch journal) learns about one item reaching the store.
package struct RecordedItem: Sendable {
    /// The item's name: `plugin.item` for a Lua item, the registered name or the type of a Swift one.
    package var name: String
    /// Whether the store applies it as a state updater (else it starts a side effect).
    package var isUpdater: Bool
    /// Whether it is a Lua item (dispatched by name or bound from a typed wrapper).
    package var isLuaItem: Bool
    /// The plugin and its running version for a Lua item; nil for a Swift item. Looked up where the
    /// entry is written (off the store's drain) in the plugins loaded when the item ran.
    package var plugin: PluginInfo? {
        guard let luaItem else { return nil }
        let pluginName = pluginName(ofItem: luaItem.name)
        return luaItem.loadedPlugins.first { $0.name == pluginName }
    }
    /// A Lua item's own name and the plugins loaded when it ran.
    private let luaItem: (name: String, loadedPlugins: [PluginInfo])?
    /// For a reload's swap, the plugins loaded once it ran (read right after it, before another swap
    /// can run): the only items that change which plugin versions the state is kept by.
    package let pluginsAfterward: (@Sendable () -> [PluginInfo])?
    /// The payload, converted to JSON only when ``payloadJSON()`` is called (off the store's drain).
    private var payload: PluginValue

    /// The payload as JSON: nil when there is none.
    package func payloadJSON() throws -> JSONValue? {
        try payload.json()
    }

    /// Describes `dispatchable` as it reaches the store. A recorder put innermost (the package
    /// initializer's `innerInterceptors`) sees items as they run, after every interceptor.
    package init(_ dispatchable: any Dispatchable) {
        if let bound = Self.boundTypes.answer(for: type(of: dispatchable)) {
            self = bound.recorded(dispatchable)
        } else {
            name = String(describing: type(of: dispatchable))
            isUpdater = dispatchable is any AnyStateUpdater
            isLuaItem = false
            luaItem = nil
            pluginsAfterward = nil
            // Every dispatchable is Sendable; only the Encodable ones have a payload to record.
            payload = (dispatchable as? any Encodable).map { .encodable(SendableBox(value: $0)) } ?? .none
        }
    }

    /// A Lua item's description.
    fileprivate init(luaItem name: String, isUpdater: Bool, loadedPlugins: [PluginInfo], payload: PluginValue) {
        self.name = name
        self.isUpdater = isUpdater
        isLuaItem = true
        luaItem = (name, loadedPlugins)
        self.payload = payload
        pluginsAfterward = nil
    }

    /// A reload's swap: recorded as `reload <plugin>`, a Swift updater, knowing where to read the versions it installs.
    fileprivate init(swap: any Dispatchable, plugin: String, pluginsAfterward: @escaping @Sendable () -> [PluginInfo]) {
        // Named for what it did, as `history` shows it: its Swift type (`PluginSwap<JSONValue>`) said nothing.
        name = "reload \(plugin)"
        isUpdater = true
        isLuaItem = false
        luaItem = nil
        payload = .none
        self.pluginsAfterward = pluginsAfterward
    }

    /// Which item types are Lua items, remembered per type: asked of the runtime, the conformance
    /// check costs as much as the rest of the description (~1,100 instructions), on the store's drain.
    private static let boundTypes = ItemTypeMemo { $0 as? any RuntimeBoundItem.Type }
}

/// An item that knows the runtime it runs in, so a recorder can name its plugin's version (a Lua
/// item) or the versions it installs (a reload's swap).
private protocol RuntimeBoundItem: Dispatchable {
    /// Its description, with the plugins loaded in its runtime.
    var recorded: RecordedItem { get }
}

extension RuntimeBoundItem {
    /// The description of `item`, an item of this type (the memo found it so).
    static func recorded(_ item: any Dispatchable) -> RecordedItem {
        opened(item)
    }

    private static func opened<Item: Dispatchable>(_ item: Item) -> RecordedItem {
        // `Item` is `Self`: the existential is opened, not cast (a cast asks the runtime again).
        assert(Item.self == Self.self)
        return withUnsafePointer(to: item) { UnsafeRawPointer($0).assumingMemoryBound(to: Self.self).pointee.recorded }
    }
}

extension LuaItemUpdater: RuntimeBoundItem {
    fileprivate var recorded: RecordedItem {
        RecordedItem(luaItem: item, isUpdater: true, loadedPlugins: runtime.loadedPlugins, payload: payload)
    }
}

extension PluginSwap: RuntimeBoundItem {
    fileprivate var recorded: RecordedItem {
        RecordedItem(swap: self, plugin: plugin) { [runtime] in runtime.loadedPlugins }
    }
}

extension LuaItemSideEffect: RuntimeBoundItem {
    fileprivate var recorded: RecordedItem {
        RecordedItem(luaItem: item, isUpdater: false, loadedPlugins: runtime.loadedPlugins, payload: payload)
    }
}

extension PluginHost {
    /// Runs the Lua updater `item` with `payload` on `state` outside the store: no interceptor, rule or
    /// listener sees it. Replaying a recorded dispatch against the current plugin code is this.
    ///
    /// - Throws: ``PluginError/Kind/unknownItem`` when `item` is not a Lua updater, or the updater's error.
    package func applyUpdater(_ item: String, payload: JSONValue?, to state: S) throws(PluginError) -> S {
        guard case .luaUpdater? = runtime.kind(of: item) else { throw unknownItemError(item, among: runtime.catalog.itemNames) }
        return try runtime.applyUpdater(item, to: state, payload: PluginValue(payload: payload), outsideStore: true)
    }
}

extension JSONValue {
    /// The JSON form of any `Encodable` value, built directly (no JSON text on the way); the same
    /// value `JSONEncoder` would write, with integers and floats kept apart.
    package init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder().encode(value)
    }

    /// The JSON form of a Lua value: a table with keys 1…n is an array, one with string keys or
    /// marked as an object an object, and an unmarked empty one an empty array.
    init(luaValue: LuaValue) throws {
        switch luaValue {
        case .nil, .null: self = .null
        case .boolean(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .number(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .object(let entries) where entries.isEmpty: self = .object([:])
        case .table(let entries), .object(let entries):
            if entries.isEmpty {
                self = .array([])
            } else if entries.keys.allSatisfy({ if case .string = $0 { true } else { false } }) {
                var members: [String: JSONValue] = [:]
                for case (.string(let name), let value) in entries { members[name] = try JSONValue(luaValue: value) }
                self = .object(members)
            } else if (1...entries.count).allSatisfy({ entries[.integer(Int64($0))] != nil }) {
                self = .array(try (0..<entries.count).map { try JSONValue(luaValue: entries[.integer(Int64($0 + 1))]!) })
            } else {
                throw RecordingError(message: Self.noJSONForm(entries))
            }
        }
    }

    /// Why a table whose keys are neither all strings nor exactly `1…n` has no JSON form.
    private static func noJSONForm(_ entries: [LuaValue: LuaValue]) -> String {
        func shown(_ key: LuaValue) -> String {
            switch key {
            case .string(let name): JSONValue.string(name).jsonString()
            case .integer(let value): "[\(value)]"
            case .number(let value): "[\(value)]"
            case .boolean(let value): "[\(value)]"
            default: "[\(key.type)]"
            }
        }
        var names: [String] = [], positions: [Int64] = [], others: [String] = []
        for key in entries.keys {
            switch key {
            case .string: names.append(shown(key))
            case .integer(let position) where position >= 1: positions.append(position)
            default: others.append(shown(key))
            }
        }
        if let other = others.min() { return "a table with the key \(other) (JSON has string keys, or positions 1…n)" }
        if let name = names.min(), let position = positions.min() { return "a table with both [\(position)] and the key \(name)" }
        let hole = (1...).first { entries[.integer(Int64($0))] == nil }!
        return "a list with a hole at [\(hole)]"
    }
}

/// An `Encodable` taken from a `Sendable` dispatchable, so still safe to send.
private struct SendableBox: Encodable, @unchecked Sendable {
    let value: any Encodable

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

/// A Lua value that has no JSON form.
package struct RecordingError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

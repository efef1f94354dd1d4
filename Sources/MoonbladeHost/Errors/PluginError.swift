import MoonbladeLua

/// A problem with a plugin or caused by one, with the place a plugin author can go and fix.
///
/// `description` is one line: `todo.add: todo/plugin.lua:12: attempt to index a nil value (field 'todos')`.
public struct PluginError: Error, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Hashable {
        /// `plugin.lua` could not be read, compiled or run.
        case load
        /// What `plugin.lua` returned is not a valid plugin table.
        case shape
        /// A name is already taken: another plugin with the same name is loaded, or an item name is held
        /// by another item (a loaded plugin's item and a Swift item registered with
        /// ``PluginHost/register(_:as:)`` never share a name; neither shadows the other).
        case duplicate
        /// No item is registered under the name dispatched.
        case unknownItem
        /// A name the host was given is not an item name `plugin.item` (see
        /// ``PluginHost/register(_:as:)``).
        case invalidName
        /// The item exists but is of another kind than the call needs (an updater asked for a value).
        case wrongKind
        /// Plugin code raised an error.
        case runtime
        /// Plugin code exceeded a limit: the VM's memory, its instruction budget, or a side effect's
        /// time limit (see ``PluginHost/Configuration``).
        case limit
        /// An updater left a state that does not decode into the store's state type.
        case invalidState
        /// A payload, argument or result could not cross between Swift and Lua.
        case invalidValue
        /// A Lua item was dispatched to a store that is not a plugin host's.
        case unbound
        /// A recorded state (the dispatch journal's) was kept by a later version of the plugin than
        /// the one loaded: no migration leads back to the loaded version.
        case downgrade
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// The plugin involved, when known.
    public var plugin: String?
    /// The item involved (`todo.add`), when there is one.
    public var item: String?
    /// What is wrong, in one line, without the place.
    public var message: String
    /// The Lua place to look at, when known.
    public var location: LuaLocation?
    /// The Lua traceback, when the error came from running code.
    public var traceback: String?
    /// The error behind this one (a `LuaError`, a `DecodingError`, a Swift dependency's error).
    public var underlying: (any Error)?

    /// An error of `kind` about `plugin` and `item`, with its one-line `message` and, when known, its place.
    public init(
        _ kind: Kind, plugin: String? = nil, item: String? = nil, message: String, location: LuaLocation? = nil,
        traceback: String? = nil, underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.plugin = plugin
        self.item = item
        self.message = message
        self.location = location
        self.traceback = traceback
        self.underlying = underlying
    }

    /// Wraps an error raised while running plugin code.
    init(_ error: LuaError, plugin: String?, item: String?) {
        let kind: Kind =
            switch error.kind {
            case .memory, .limit: .limit
            case .syntax: .load
            case .conversion: .invalidValue
            // An item Lua named that could not be made (an unknown name) is of the kind it would be from Swift.
            case .runtime: (error.underlying as? ItemError)?.kind ?? .runtime
            }
        // Lua's message often starts with the place; keep the message alone, the place apart.
        // A message re-raised on the line that caught it (`assert(pcall(f))`, where Lua adds the place
        // again) names it more than once: once is enough.
        var message = String(error.message.prefix { $0 != "\n" })
        if let location = error.location {
            while message.hasPrefix("\(location): ") {
                message.removeFirst("\(location): ".count)
            }
        }
        self.init(
            kind, plugin: plugin, item: item, message: message, location: error.location,
            traceback: error.traceback, underlying: error.underlying ?? error)
    }

    /// `subject: place: message`, on one line.
    public var description: String {
        let subject = item ?? plugin.map { "plugin \($0)" }
        return [subject, location?.description, message].compactMap { $0 }.joined(separator: ": ")
    }
}

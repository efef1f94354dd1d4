import MoonbladeLua

/// A collection that a resident state decode can patch: given the value its older table decoded
/// to and the keys that changed, it rebuilds the new value by decoding only those keys.
///
/// Arrays and `[String: V]` dictionaries conform; a dynamic JSON-like enum conforms by patching the
/// payload of its `.array` and `.object` cases:
///
/// ```swift
/// extension JSONValue: LuaStatePatchable {
///     package static func luaPatched(from base: JSONValue, changes: LuaTableChanges) throws -> JSONValue? {
///         switch base {
///         case .array(let items): try changes.patchedArray(items).map(JSONValue.array)
///         case .object(let fields): try changes.patchedDictionary(fields).map(JSONValue.object)
///         default: nil
///         }
///     }
/// }
/// ```
///
/// A conforming type's tables are cached by identity, and so are its items, so that a change deep
/// inside costs the depth of the path, not the size of the state.
package protocol LuaStatePatchable: Decodable {
    /// The value of the changed table, made from `base` (what its older table decoded to) and
    /// `changes`; nil to have the table decoded in full instead (which also reports any error in it).
    static func luaPatched(from base: Self, changes: LuaTableChanges) throws -> Self?
}

extension Array: LuaStatePatchable where Element: Decodable {
    package static func luaPatched(from base: [Element], changes: LuaTableChanges) throws -> [Element]? {
        try changes.patchedArray(base)
    }
}

extension Dictionary: LuaStatePatchable where Key == String, Value: Decodable {
    package static func luaPatched(from base: [String: Value], changes: LuaTableChanges) throws -> [String: Value]? {
        try changes.patchedDictionary(base)
    }
}

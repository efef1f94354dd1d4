import MoonbladeLua
import MoonbladeResidentState

/// The dynamic state decodes only what changed, as typed states do: a changed object or array is
/// patched at its changed keys, starting from what its older table decoded to.
extension JSONValue: LuaStatePatchable {
    package static func luaPatched(from base: JSONValue, changes: LuaTableChanges) throws -> JSONValue? {
        switch base {
        case .array(let items): try changes.patchedArray(items).map(JSONValue.array)
        case .object(let fields): try changes.patchedDictionary(fields).map(JSONValue.object)
        default: nil
        }
    }
}

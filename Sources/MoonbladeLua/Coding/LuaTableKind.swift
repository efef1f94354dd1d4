import CLua
import Foundation

/// What an empty Lua table stands for, which its contents cannot tell: Lua has one `{}` for an empty
/// list and an empty record, JSON has `[]` and `{}`.
///
/// The kind lives in a marker metatable shared by every table of that kind in a VM. A value that
/// encodes an object through ``LuaTableKindEncoding`` marks its table, and one that decodes through
/// ``LuaTableKindDecoding`` asks the kind of a table, so `{}` stays `{}` and `[]` stays `[]` on a
/// round trip through Lua, and an object that Lua code empties stays an object. Scripts make marked tables with
/// `moonblade.array()` and `moonblade.object()` (``LuaStack/pushTableKindLibrary()``), as Redis's
/// cjson has `empty_array`. A table with contents is read by its contents: a sequence is an array, anything else an object.
public enum LuaTableKind: Sendable, Equatable {
    /// A list: JSON's `[]`, `moonblade.array()` in a script.
    case array
    /// A record: JSON's `{}`, `moonblade.object()` in a script.
    case object

    /// The registry key of the marker metatable, also what `getmetatable` shows a script.
    var name: String {
        switch self {
        case .array: "moonblade.array"
        case .object: "moonblade.object"
        }
    }
}

/// An encoder that can mark a table with its kind, so it keeps it when it is or becomes empty:
/// ``LuaEncoder``'s.
public protocol LuaTableKindEncoding: Encoder {
    /// Marks the table just encoded through this encoder's single-value container as `kind`; does
    /// nothing when what was encoded is not a table.
    func markTable(as kind: LuaTableKind)
}

/// A decoder that can tell the kind of a table, empty ones included: ``LuaDecoder``'s.
public protocol LuaTableKindDecoding: Decoder {
    /// The kind of the value being decoded when it is a table, nil when it is not: an array when it has
    /// a sequence part (`t[1]` is set) or is empty and not marked as an object, else an object. A value
    /// that knows this need not probe (a probe that fails hides the error inside the table).
    var tableKind: LuaTableKind? { get }
}

extension LuaStack {
    /// Pushes the marker metatable of `kind`, made at its first use in the VM and kept in the registry.
    ///
    /// It is protected (`getmetatable` gives the kind's name, `setmetatable` cannot replace it), so no
    /// script can change what every table of the kind shares.
    public func pushTableKindMarker(_ kind: LuaTableKind) {
        push(kind.name)
        if lua_rawget(state, moonblade_registryindex) == LUA_TTABLE { return }
        pop()
        pushTable(fieldCount: 1)
        push(kind.name)
        rawSet(table: -2, field: "__metatable")
        push(kind.name)
        pushCopy(of: -2)
        lua_rawset(state, moonblade_registryindex)
    }

    /// The kind of the table at `index` (see ``LuaTableKindDecoding/tableKind``); nil when it is not one.
    public func tableKind(at index: Int32) -> LuaTableKind? {
        let table = absolute(index)
        guard lua_type(state, table) == LUA_TTABLE else { return nil }
        if rawLength(at: table) > 0 { return .array }
        pushNil()
        if next(table: table) {
            pop(2)
            return .object
        }
        return isMarked(.object, at: table) ? .object : .array
    }

    /// Whether the table at `index` carries the marker of `kind` (whatever its contents).
    public func isMarked(_ kind: LuaTableKind, at index: Int32) -> Bool {
        let table = absolute(index)
        guard lua_getmetatable(state, table) != 0 else { return false }
        pushTableKindMarker(kind)
        defer { pop(2) }
        return lua_rawequal(state, -1, -2) != 0
    }

    /// Pushes the `moonblade` library scripts see: `moonblade.array()` and `moonblade.object()` make
    /// an empty table of that kind; `moonblade.null` is the `null` sentinel (``pushNull()``), JSON's
    /// `null` where a table must keep it (``LuaNullEncoding``). It is read-only, made once per VM and shared, so one copy serves
    /// every plugin environment.
    public func pushTableKindLibrary() throws(LuaError) {
        push(Self.tableKindLibraryKey)
        if lua_rawget(state, moonblade_registryindex) == LUA_TTABLE { return }
        pop()
        try load(Self.tableKindLibrarySource, chunkName: "moonblade/library.lua")
        pushTableKindMarker(.array)
        pushTableKindMarker(.object)
        pushNull()
        try callAsHost(arguments: 3, results: 1)
        push(Self.tableKindLibraryKey)
        pushCopy(of: -2)
        lua_rawset(state, moonblade_registryindex)
    }

    private static let tableKindLibraryKey = "moonblade.library"

    private static let tableKindLibrarySource = String(luaResource: PackageResources.library_lua)
}

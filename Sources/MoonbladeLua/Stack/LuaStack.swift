import CLua

/// A view of one Lua thread's stack: the primitives the bridge is built from.
///
/// Every operation here is safe to call from Swift: none can raise a Lua error (table access is raw,
/// strings are read only when they already are strings, and allocation happens with the guest memory
/// limit disarmed), given the preconditions they state: ``rawSet(table:)`` needs a key that is neither
/// nil nor NaN, ``next(table:)`` a key the table has. A `LuaStack` is only valid while its VM is held by the current thread — inside
/// ``LuaVM`` methods or a Swift function Lua is calling — and must not be stored.
///
/// Indices follow Lua: positive from the bottom (1), negative from the top (-1).
public struct LuaStack {
    /// The `lua_State` this stack belongs to (the main thread or a coroutine).
    public let state: OpaquePointer

    /// An identity of the Lua thread this stack belongs to, stable while the thread lives.
    public var threadIdentity: UnsafeRawPointer { UnsafeRawPointer(state) }

    /// Wraps a `lua_State` of a VM created by ``LuaVM``.
    public init(_ state: OpaquePointer) {
        self.state = state
    }

    /// The number of values on the stack (the index of the top one).
    @inlinable
    public var top: Int32 {
        get { lua_gettop(state) }
        nonmutating set { lua_settop(state, newValue) }
    }

    /// Removes `count` values from the top.
    @inlinable
    public func pop(_ count: Int32 = 1) {
        moonblade_pop(state, count)
    }

    /// Converts a relative index into an absolute one that stays valid as the stack grows.
    public func absolute(_ index: Int32) -> Int32 {
        lua_absindex(state, index)
    }

    /// Makes room for `extra` more values; Lua only guarantees 20 free slots on entry.
    public func reserve(_ extra: Int32) throws(LuaError) {
        guard lua_checkstack(state, extra) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow (cannot grow by \(extra) slots)")
        }
    }

    /// The type of the value at `index`, or `.none` for an index past the top.
    @inlinable
    public func type(at index: Int32) -> LuaType {
        LuaType(rawValue: lua_type(state, index)) ?? .none
    }

    /// Moves the top value into `index`, shifting the values above it up.
    public func insert(at index: Int32) {
        moonblade_insert(state, index)
    }

    /// Removes the value at `index`, shifting the values above it down.
    public func remove(at index: Int32) {
        moonblade_remove(state, index)
    }

    /// Pushes a copy of the value at `index`.
    public func pushCopy(of index: Int32) {
        lua_pushvalue(state, index)
    }

    var runtime: LuaRuntime { LuaRuntime.of(state) }
}

// MARK: - Scalars

extension LuaStack {
    /// Pushes `nil`.
    public func pushNil() {
        lua_pushnil(state)
    }

    /// Pushes a boolean.
    public func push(_ value: Bool) {
        lua_pushboolean(state, value ? 1 : 0)
    }

    /// Pushes an integer.
    public func push(_ value: Int64) {
        lua_pushinteger(state, value)
    }

    /// Pushes a float.
    public func push(_ value: Double) {
        lua_pushnumber(state, value)
    }

    /// Pushes the string's UTF-8 bytes exactly, embedded NUL bytes included.
    @inline(__always)  // the encoder pushes every field name and string value through here
    public func push(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            _ = lua_pushlstring(state, bytes.baseAddress, bytes.count)
        }
    }

    /// The truth of the value at `index` as Lua sees it: false only for `nil` and `false`.
    public func boolean(at index: Int32) -> Bool {
        lua_toboolean(state, index) != 0
    }

    /// The integer at `index`, or nil when it is not a number with an exact integer value
    /// (an integral float such as `3.0` gives 3; `3.5`, NaN and floats out of range give nil).
    @inlinable
    public func integer(at index: Int32) -> Int64? {
        guard lua_type(state, index) == LUA_TNUMBER else { return nil }  // strings would be coerced
        var isInteger: Int32 = 0
        let value = lua_tointegerx(state, index, &isInteger)
        return isInteger != 0 ? value : nil
    }

    /// Whether the number at `index` is stored as a Lua integer (subtype), not a float.
    public func isInteger(at index: Int32) -> Bool {
        lua_isinteger(state, index) != 0
    }

    /// The number at `index` as a `Double`, or nil when it is not a number.
    public func number(at index: Int32) -> Double? {
        guard lua_type(state, index) == LUA_TNUMBER else { return nil }
        return lua_tonumberx(state, index, nil)
    }

    /// The string at `index`, or nil when it is not a string; numbers are not converted (that would
    /// rewrite the stack slot, and can raise).
    public func string(at index: Int32) -> String? {
        withStringBytes(at: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the bytes of the string at `index`, or returns nil when it is not a string.
    /// The bytes are Lua's own and only valid inside `body`.
    @inline(__always)  // the decoder reads every string and field name through here
    public func withStringBytes<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard lua_type(state, index) == LUA_TSTRING else { return nil }
        var count = 0
        let bytes = lua_tolstring(state, index, &count)
        return try body(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

// MARK: - Tables (raw access only: metamethods never run from the host)

extension LuaStack {
    /// Pushes a new table presized for `arrayCount` sequence items and `fieldCount` other fields.
    public func pushTable(arrayCount: Int32 = 0, fieldCount: Int32 = 0) {
        lua_createtable(state, arrayCount, fieldCount)
    }

    /// Pops a table and makes it the metatable of the table at `index`, whatever that table's
    /// `__metatable` says (the host sets metatables on tables it made).
    public func setMetatable(ofTableAt index: Int32) {
        lua_setmetatable(state, index)
    }

    /// Pushes the globals table.
    public func pushGlobals() {
        lua_rawgeti(state, moonblade_registryindex, lua_Integer(LUA_RIDX_GLOBALS))
    }

    /// Pops a key and pushes `table[key]`, raw. Returns the value's type.
    @discardableResult
    public func rawGet(table index: Int32) -> LuaType {
        LuaType(rawValue: lua_rawget(state, index)) ?? .none
    }

    /// Pushes `table[field]`, raw. Returns the value's type.
    @discardableResult
    public func rawGet(table index: Int32, field: String) -> LuaType {
        let table = absolute(index)
        push(field)
        return rawGet(table: table)
    }

    /// Pushes `table[position]`, raw. Returns the value's type.
    @discardableResult
    public func rawGet(table index: Int32, at position: Int64) -> LuaType {
        LuaType(rawValue: lua_rawgeti(state, index, position)) ?? .none
    }

    /// Pops a value and a key (pushed in that order: key, then value) and sets `table[key] = value`, raw.
    /// The key must be neither nil nor NaN: Lua raises for those.
    public func rawSet(table index: Int32) {
        lua_rawset(state, index)
    }

    /// Pops a value and sets `table[field]` to it, raw.
    public func rawSet(table index: Int32, field: String) {
        let table = absolute(index)
        push(field)
        insert(at: -2)
        lua_rawset(state, table)
    }

    /// Pops a value and sets `table[position]` to it, raw.
    public func rawSet(table index: Int32, at position: Int64) {
        lua_rawseti(state, index, position)
    }

    /// The raw length of the table or string at `index` (`#` without `__len`).
    public func rawLength(at index: Int32) -> Int {
        Int(lua_rawlen(state, index))
    }

    /// Table traversal: pops a key and pushes the next key and its value; at the end pushes nothing
    /// and returns false. Start with a nil key; do not add keys to the table while traversing it.
    public func next(table index: Int32) -> Bool {
        lua_next(state, index) != 0
    }

    /// The string keys of the table at `index`, sorted, read raw; for a table whose metatable has a
    /// table `__index` (a read-only face), that table's keys instead. What editor types are checked
    /// against: the names the host really installs.
    package func fieldNames(ofTableAt index: Int32) -> [String] {
        let table = lua_absindex(state, index)
        let base = top
        defer { top = base }
        var source = table
        if lua_getmetatable(state, table) != 0, rawGet(table: -1, field: "__index") == .table {
            source = top
        }
        var names: [String] = []
        pushNil()
        while next(table: source) {
            if lua_type(state, -2) == LUA_TSTRING, let name = string(at: -2) { names.append(name) }
            pop()
        }
        return names.sorted()
    }

    /// An identity for the table, function, thread or userdata at `index` (for cycle detection).
    public func identity(at index: Int32) -> UnsafeRawPointer? {
        lua_topointer(state, index)
    }
}

// MARK: - Functions

extension LuaStack {
    /// Pops a table and makes it the global environment (`_ENV`) of the Lua chunk at `index`,
    /// so that what the chunk reads and writes as globals lives in that table.
    public func setEnvironment(ofChunkAt index: Int32) {
        // A main chunk's first and only upvalue is _ENV.
        _ = lua_setupvalue(state, index, 1)
    }
}

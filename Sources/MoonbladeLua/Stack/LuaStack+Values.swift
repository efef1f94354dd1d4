import CLua

extension LuaStack {
    /// Pushes `value`, building tables as needed.
    public func push(_ value: LuaValue) throws(LuaError) {
        try reserve(3)
        switch value {
        case .nil: pushNil()
        case .boolean(let boolean): push(boolean)
        case .integer(let integer): push(integer)
        case .number(let number): push(number)
        case .string(let string): push(string)
        case .table(let entries):
            let sequenceCount = entries.keys.count { if case .integer(let i) = $0 { i >= 1 } else { false } }
            pushTable(arrayCount: Int32(clamping: sequenceCount), fieldCount: Int32(clamping: entries.count - sequenceCount))
            let table = top
            do throws(LuaError) {
                for (key, element) in entries where key != .nil {
                    // `lua_rawset` raises on a NaN key, and nothing here may raise (boundary rule 1).
                    if case .number(let number) = key, number.isNaN {
                        throw LuaError(.conversion, message: "a table key cannot be NaN")
                    }
                    try push(key)
                    try push(element)
                    rawSet(table: table)
                }
            } catch {
                top = table - 1
                throw error
            }
        }
    }

    /// Reads the value at `index` as plain data.
    ///
    /// Functions, threads and userdata, tables that contain themselves and tables nested more than
    /// `LuaCoding.maximumDepth` levels deep are `.conversion` errors. (The nesting is limited as the
    /// coders limit it: a plugin's `ctx.dispatch` payload a million tables deep overflowed the thread's
    /// stack here and crashed the process.)
    public func value(at index: Int32) throws(LuaError) -> LuaValue {
        var tablesBeingRead: Set<UnsafeRawPointer> = []
        return try value(at: absolute(index), tablesBeingRead: &tablesBeingRead)
    }

    private func value(at index: Int32, tablesBeingRead: inout Set<UnsafeRawPointer>) throws(LuaError) -> LuaValue {
        switch type(at: index) {
        case .none, .nil: return .nil
        case .boolean: return .boolean(lua_toboolean(state, index) != 0)
        case .number:
            return isInteger(at: index) ? .integer(lua_tointegerx(state, index, nil)) : .number(lua_tonumberx(state, index, nil))
        case .string: return .string(string(at: index)!)
        case .table:
            let shown = resolveStateProxy(at: index)
            if shown != index {
                // A view or draft of the resident state: its data, read from the table it shows.
                defer { pop() }
                return try value(at: shown, tablesBeingRead: &tablesBeingRead)
            }
            // The tables being read are the ones on the way down: their count is the depth.
            guard tablesBeingRead.count < LuaCoding.maximumDepth else {
                throw LuaError(.conversion, message: "tables nested more than \(LuaCoding.maximumDepth) levels deep")
            }
            guard let identity = identity(at: index), tablesBeingRead.insert(identity).inserted else {
                throw LuaError(.conversion, message: "a table contains itself; it has no data form")
            }
            defer { tablesBeingRead.remove(identity) }
            try reserve(3)
            var entries: [LuaValue: LuaValue] = [:]
            pushNil()
            while next(table: index) {
                do {
                    let key = try value(at: top - 1, tablesBeingRead: &tablesBeingRead)
                    entries[key] = try value(at: top, tablesBeingRead: &tablesBeingRead)
                } catch {
                    pop(2)
                    throw error
                }
                pop()
            }
            return .table(entries)
        case let other:
            throw LuaError(.conversion, message: "a \(other) has no data form")
        }
    }

    /// Pops `count` values and returns them bottom first.
    public func popValues(_ count: Int32) throws(LuaError) -> [LuaValue] {
        defer { pop(count) }
        var values: [LuaValue] = []
        values.reserveCapacity(Int(count))
        for index in stride(from: top - count + 1, through: top, by: 1) {
            values.append(try value(at: index))
        }
        return values
    }
}

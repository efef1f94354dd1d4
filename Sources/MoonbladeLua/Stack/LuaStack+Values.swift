import CLua

extension LuaStack {
    /// Pushes `value`, building tables as needed.
    public func push(_ value: LuaValue) throws(LuaError) {
        try reserve(3)
        switch value {
        case .nil: pushNil()
        case .null: pushNull()
        case .boolean(let boolean): push(boolean)
        case .integer(let integer): push(integer)
        case .number(let number): push(number)
        case .string(let string): push(string)
        case .table(let entries), .object(let entries):
            let isObject = if case .object = value { true } else { false }
            if isObject { try reserve(5) }  // the table, and the marker's making above it
            let sequenceCount = entries.keys.count { if case .integer(let i) = $0 { i >= 1 } else { false } }
            pushTable(arrayCount: Int32(clamping: sequenceCount), fieldCount: Int32(clamping: entries.count - sequenceCount))
            let table = top
            if isObject {
                pushTableKindMarker(.object)
                lua_setmetatable(state, table)
            }
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
    /// Functions, threads and userdata, tables that contain themselves and tables nested more than 512
    /// levels deep are `.conversion` errors.
    ///
    /// - Parameters:
    ///   - index: the value's stack index.
    ///   - requiringUTF8: refuse a string (or key) that is not valid UTF-8 with a `.conversion`
    ///     error, as the host does for a value Lua hands on: otherwise it is read with each bad byte
    ///     replaced by U+FFFD.
    public func value(at index: Int32, requiringUTF8: Bool = false) throws(LuaError) -> LuaValue {
        var tablesBeingRead: Set<UnsafeRawPointer> = []
        return try value(at: absolute(index), tablesBeingRead: &tablesBeingRead, requiringUTF8: requiringUTF8)
    }

    private func value(
        at index: Int32, tablesBeingRead: inout Set<UnsafeRawPointer>, requiringUTF8: Bool
    ) throws(LuaError) -> LuaValue {
        switch type(at: index) {
        case .none, .nil: return .nil
        case .boolean: return .boolean(lua_toboolean(state, index) != 0)
        case .number:
            return isInteger(at: index) ? .integer(lua_tointegerx(state, index, nil)) : .number(lua_tonumberx(state, index, nil))
        case .string:
            guard requiringUTF8 else { return .string(string(at: index)!) }
            guard let text = withStringBytes(at: index, { LuaCoding.string(validatingUTF8: $0) }) ?? nil else {
                throw LuaError(.conversion, message: "a string that is not valid UTF-8 has no data form")
            }
            return .string(text)
        case .table:
            let shown = resolveStateProxy(at: index)
            if shown != index {
                // A view or draft of the resident state: its data, read from the table it shows.
                defer { pop() }
                return try value(at: shown, tablesBeingRead: &tablesBeingRead, requiringUTF8: requiringUTF8)
            }
            // The tables being read are those enclosing this one: as deep as the coders go, and no
            // deeper than Swift's stack can follow (thousands of levels overflowed it).
            guard tablesBeingRead.count < LuaCoding.maximumDepth else {
                throw LuaError(.conversion, message: "a table nested more than \(LuaCoding.maximumDepth) levels deep has no data form")
            }
            guard let identity = identity(at: index), tablesBeingRead.insert(identity).inserted else {
                throw LuaError(.conversion, message: "a table contains itself; it has no data form")
            }
            defer { tablesBeingRead.remove(identity) }
            try reserve(5)  // the marker check needs the most: the metatable and the marker's making
            let isObject = isMarked(.object, at: index)
            var entries: [LuaValue: LuaValue] = [:]
            pushNil()
            while next(table: index) {
                do throws(LuaError) {
                    let key = try value(at: top - 1, tablesBeingRead: &tablesBeingRead, requiringUTF8: requiringUTF8)
                    let element = try value(at: top, tablesBeingRead: &tablesBeingRead, requiringUTF8: requiringUTF8)
                    // Lua's keys differ; as data two may not (Swift strings compare by canonical
                    // equivalence, tables by contents): one would be dropped without a word.
                    if let earlier = entries.index(forKey: key) {
                        throw LuaError(.conversion, message: Self.sameKeys(entries[earlier].key, key))
                    }
                    entries[key] = element
                } catch {
                    pop(2)
                    throw error
                }
                pop()
            }
            return isObject ? .object(entries) : .table(entries)
        case .lightUserdata where lua_touserdata(state, index) == nil:
            return .null
        case let other:
            throw LuaError(.conversion, message: "a \(other) has no data form")
        }
    }

    /// The error for two keys of one table that are one key as data.
    private static func sameKeys(_ first: LuaValue, _ second: LuaValue) -> String {
        guard case .string(let one) = first, case .string(let other) = second else {
            return "a table has two keys that are the same data (\(first)); it has no data form"
        }
        if one.utf8.elementsEqual(other.utf8) {  // read leniently: keys that are not UTF-8, repaired alike
            return "a table has two keys that are not UTF-8 and read as the same text; it has no data form"
        }
        return LuaCodingPath.sameTextKeys(inEitherOrder: Array(one.utf8), Array(other.utf8)) + "; a table with both has no data form"
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

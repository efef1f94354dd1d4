import CLua

/// A collection ``LuaDecoder`` reads in one loop over its sequence, instead of through its
/// `init(from:)` and an unkeyed container: no witness calls, existential container or
/// `Array<Element>` metadata look-up per element.
///
/// It reads exactly what `init(from:)` would (the same sequence check, the same errors and coding
/// paths: positions 1-based); it only skips the `Codable` machinery between the items.
protocol LuaSequenceDecodable {
    /// Reads the sequence at `decoder.index`, which ``LuaValueDecoder/decodeNested(_:at:key:_:)`` has
    /// pointed at the collection's table.
    static func luaDecodeSequence(with decoder: LuaValueDecoder) throws -> Self
}

extension Array: LuaSequenceDecodable where Element: Decodable {
    static func luaDecodeSequence(with decoder: LuaValueDecoder) throws -> [Element] {
        let container = try decoder.unkeyedContainer(at: decoder.index)
        let L = decoder.L
        let table = container.table
        let count = Int(container.total)
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var position = 1
        while position <= count {
            lua_rawgeti(L, table, lua_Integer(position))
            defer { lua_settop(L, -2) }
            elements.append(try decoder.decodeValue(Element.self, at: lua_gettop(L), step: .position(position)))
            position += 1
        }
        return elements
    }
}

extension LuaValueDecoder {
    /// `type` as a ``LuaSequenceDecodable`` collection, or nil.
    @inline(__always)
    func sequenceDecodable(_ type: Any.Type) -> (any LuaSequenceDecodable.Type)? {
        sequenceTypes.answer(for: type) { $0 as? any LuaSequenceDecodable.Type }
    }
}

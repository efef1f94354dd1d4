/// A collection ``LuaEncoder`` writes in one loop into a presized sequence, instead of through its
/// `encode(to:)` and an unkeyed container: no witness calls or existential container per element.
///
/// It writes exactly what `encode(to:)` would (the same table, the same errors and coding paths); it
/// only skips the `Codable` machinery between the items.
protocol LuaSequenceEncodable {
    /// Writes the collection `pointer` points to (a `Self`) into the sequence table of `encoder`'s
    /// value being encoded.
    static func luaEncodeSequence(at pointer: UnsafeRawPointer, with encoder: LuaValueEncoder) throws
}

extension Array: LuaSequenceEncodable where Element: Encodable {
    static func luaEncodeSequence(at pointer: UnsafeRawPointer, with encoder: LuaValueEncoder) throws {
        let elements = pointer.assumingMemoryBound(to: [Element].self)
        // Through the encoder, not a container: a call on a container's unowned encoder retains it.
        let table = encoder.sequenceContainer(count: Int32(clamping: elements.pointee.count)).table
        guard table != 0 || elements.pointee.isEmpty else { throw encoder.overflow() }
        var position = 0
        for element in elements.pointee {
            position += 1
            try encoder.storeItem(element, at: position, in: table)
        }
    }
}

extension LuaValueEncoder {
    /// `type` as a ``LuaSequenceEncodable`` collection, or nil.
    @inline(__always)
    func sequenceEncodable(_ type: Any.Type) -> (any LuaSequenceEncodable.Type)? {
        sequenceTypes.answer(for: type) { $0 as? any LuaSequenceEncodable.Type }
    }
}

// What a decoding cache (``LuaDecodingCaching``) reads and changes of the decoder. Methods, not stored
// properties: another module's access to a stored property pays the runtime's exclusivity check,
// which `@exclusivity(unchecked)` waives only in this one.
extension LuaValueDecoder {
    /// The VM's state.
    package var luaState: OpaquePointer { L }

    /// The stack index of the value being decoded.
    package var valueIndex: Int32 { index }

    /// Whether an array or a dictionary encloses the value being decoded.
    package var isInCollection: Bool { collectionDepth > 0 }

    /// Runs `body` with the items it decodes decoded without the cache (their collection's entry
    /// holds them).
    package func withoutCache<R>(_ body: () throws -> R) rethrows -> R {
        cacheSuspension += 1
        defer { cacheSuspension -= 1 }
        return try body()
    }

    /// Runs `body`, which decodes a collection, `isCollection` telling whether it is one.
    package func inCollection<R>(_ isCollection: Bool, _ body: () throws -> R) rethrows -> R {
        if isCollection { collectionDepth += 1 }
        defer { if isCollection { collectionDepth -= 1 } }
        return try body()
    }

    /// Runs `body` with the changed table at `table` checked at the keys its change `record` lists
    /// only: an older table decoded as the same type vouches for the others.
    package func vouching<R>(keysOf table: Int32, record: Int32, _ body: () throws -> R) rethrows -> R {
        let vouched = vouchedKeys
        vouchedKeys = (table, record)
        defer { vouchedKeys = vouched }
        return try body()
    }
}

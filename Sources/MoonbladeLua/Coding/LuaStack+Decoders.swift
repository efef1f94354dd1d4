extension LuaStack {
    /// Decodes the value at the absolute `index` as a `T` with the VM's kept root decoder, handing the
    /// tables it meets to `cache` (the resident state's) with the stack slots of its session (see
    /// ``LuaDecodingSession``). With `vouchingRecord`, the change record at that index vouches for the
    /// root's keys for the whole decode.
    ///
    /// One call does, in this module, all that the cache needs of the decoder: a decoder's stored
    /// properties set from another module pay the runtime's exclusivity check, and calls into this
    /// module are not inlined there (together ~250 instructions of a Lua counter dispatch,
    /// `Scripts/profile dispatch lua`).
    package func decode<T: Decodable>(
        _ type: T.Type, at index: Int32, options: LuaDecoder, cache: any LuaDecodingCaching,
        ids: Int32, tables: Int32, changes: Int32, rootChanges: Int32, pendingRoot: Int32, vouchingRecord: Int32?
    ) throws -> T {
        let runtime = runtime
        let decoder = runtime.decoders.take(state: state, options: options)
        defer { runtime.decoders.giveBack(decoder) }
        decoder.cache = LuaDecodingSession(
            cache: cache, ids: ids, tables: tables, changes: changes, rootChanges: rootChanges, pendingRoot: pendingRoot)
        try decoder.reserve()
        if let vouchingRecord { decoder.vouchedKeys = (index, vouchingRecord) }
        return try decoder.decodeValue(T.self, at: index, step: nil)
    }
}

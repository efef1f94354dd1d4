/// What decodes the tables of a resident state version through its decoding cache (the resident
/// state's Swift part, `MoonbladeResidentState`): while a decoder carries a ``LuaDecodingSession``,
/// it hands each table it meets to the session's cache.
package protocol LuaDecodingCaching: AnyObject {
    /// Decodes the table at `index` as a `T` with `decoder`, reusing or patching what the cache holds.
    func decodeCached<T: Decodable>(
        _ type: T.Type, at index: Int32, step: LuaPathStep?, session: LuaDecodingSession, decoder: LuaValueDecoder
    ) throws -> T
}

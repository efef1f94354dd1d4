/// Why a table read as a sequence is not one: it has `key`, which is no position (rendered as a plugin
/// author reads it: `"k"`, `[1.5]`). The `underlyingError` of that `DecodingError`, for a decoder that
/// tells its author more than "expected a sequence" (a dynamic state: a table of both kinds).
public struct LuaSequenceStrayKey: Error, Sendable {
    /// The key that is no position, as a plugin author reads it: `"k"`, `[1.5]`.
    public let key: String
}

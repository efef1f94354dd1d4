/// Remembers an answer per Swift type, such as the result of a conformance look-up, which costs more
/// than a short walk over the few types a state is made of.
///
/// The coders ask about the type of every nested value (is it an array?), and every item of an array
/// asks about the same type; one coder (one `push` or `decode`) keeps one memo.
///
/// Public to the resident state's module only (`@_spi(ResidentState) import`), and inlinable: a
/// `package` declaration's body is not inlined into another module, and there the unspecialized
/// memo, with its generic metadata look-ups, cost ~650 instructions of a Lua counter dispatch
/// (`Scripts/profile dispatch lua`).
@_spi(ResidentState) public struct LuaTypeMemo<Answer> {
    @usableFromInline var entries: [(type: ObjectIdentifier, answer: Answer?)] = []

    @inlinable public init() {}

    /// The answer for `type`: remembered, or asked of `look` and remembered (up to 32 types; past
    /// that, `look` is asked every time).
    @inlinable @inline(__always)
    public mutating func answer(for type: Any.Type, _ look: (Any.Type) -> Answer?) -> Answer? {
        let identity = ObjectIdentifier(type)
        for entry in entries where entry.type == identity { return entry.answer }
        let answer = look(type)
        if entries.isEmpty { entries.reserveCapacity(8) }  // one allocation for a state's few types
        if entries.count < 32 { entries.append((identity, answer)) }
        return answer
    }
}

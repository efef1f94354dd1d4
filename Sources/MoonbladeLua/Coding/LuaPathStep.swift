/// One step of the path from a coded value's root to the value being coded: a container's key, or a
/// sequence position.
///
/// The coders keep their paths as steps so that walking a sequence makes no `CodingKey` existential
/// per item (a copy through its value witnesses on the way in and out of the path): a position
/// becomes a ``LuaCodingKey`` only when a path is read, for an error or a `codingPath`.
enum LuaPathStep {
    case key(any CodingKey)
    /// A sequence position, 1-based as Lua counts.
    case position(Int)

    var codingKey: any CodingKey {
        switch self {
        case .key(let key): key
        case .position(let position): LuaCodingKey(index: position)
        }
    }
}

extension [LuaPathStep] {
    /// The steps as a coding path.
    var codingPath: [any CodingKey] { map(\.codingKey) }
}

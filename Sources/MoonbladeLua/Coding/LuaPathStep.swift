/// One step of the path from a coded value's root to the value being coded: a container's key, or a
/// sequence position.
///
/// A step is plain data, so that entering and leaving a nested value costs no reference counting
/// and no value-witness calls: a key is held by its address and type and read only when a path is
/// (for an error or a `codingPath`), and a position becomes a ``LuaCodingKey`` only then. A key step
/// therefore lives no longer than the call that has the key: make one with ``with(_:_:)``.
package enum LuaPathStep {
    /// A container's key: where it is and its type.
    case key(UnsafeRawPointer, any CodingKey.Type)
    /// A sequence position, 1-based as Lua counts.
    case position(Int)

    /// Calls `body` with a step for `key`, valid only during the call.
    @inline(__always)
    package static func with<K: CodingKey, R, E>(_ key: K, _ body: (LuaPathStep) throws(E) -> R) throws(E) -> R {
        try withUnsafePointer(to: key) { (address) throws(E) in try body(.key(UnsafeRawPointer(address), K.self)) }
    }

    var codingKey: any CodingKey {
        switch self {
        case .key(let address, let type): type.copy(from: address)
        case .position(let position): LuaCodingKey(index: position)
        }
    }
}

extension [LuaPathStep] {
    /// The steps as coding keys, after `base` (the keys a child coder starts from).
    func codingPath(after base: [any CodingKey]) -> [any CodingKey] {
        isEmpty ? base : base + map(\.codingKey)
    }
}

extension CodingKey {
    /// A copy of the key of this type at `address`.
    fileprivate static func copy(from address: UnsafeRawPointer) -> any CodingKey {
        address.assumingMemoryBound(to: Self.self).pointee
    }
}

import MoonbladeLua

/// How a Lua side effect's first result is read as the value its dispatcher awaits, type-erased on its
/// way (the store erases it anyway).
///
/// Plain data rather than a closure: a closure made in a context generic over the result's type
/// captured the type, a context allocated and freed with every dispatch.
enum SideEffectResultReader: Sendable {
    /// Decoded as this type.
    case decoding(any (Decodable & Sendable).Type)
    /// Taken as it is in Lua.
    case luaValue
    /// Ignored: the dispatcher awaits `Void`.
    case nothing

    /// The value at `index` of `stack`, read as this reader says.
    func read(_ stack: LuaStack, at index: Int32, with decoder: LuaDecoder) throws -> any Sendable {
        switch self {
        case .decoding(let type): try decoder.decode(type, from: stack, at: index)
        case .luaValue: try stack.value(at: index, requiringUTF8: true)
        case .nothing: ()
        }
    }
}

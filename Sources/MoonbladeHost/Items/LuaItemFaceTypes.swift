import Moonblade
import Synchronization

/// Which item types are typed faces of Lua items (``LuaItemFace``), remembered per type.
///
/// The binding interceptor asks about every item the host's store dispatches. Asked of the runtime,
/// a "no" for a generic type (a native item, or `LuaItemSideEffect<S, Int>` from a dispatch by name
/// returning a value) scans the conformance records every time, about 1,500 instructions; a program
/// has few item types, so the answers are kept.
final class LuaItemFaceTypes: Sendable {
    private let answers = Mutex<[ObjectIdentifier: Bool]>([:])

    /// Whether `type` is a ``LuaItemFace``.
    func contains(_ type: any Dispatchable.Type) -> Bool {
        let identity = ObjectIdentifier(type)
        if let known = answers.withLock({ $0[identity] }) { return known }
        let isFace = type is any LuaItemFace.Type
        answers.withLock { $0[identity] = isFace }
        return isFace
    }
}

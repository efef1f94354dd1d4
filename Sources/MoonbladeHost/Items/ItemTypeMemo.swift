import Moonblade

/// An answer about item types, found once per type and remembered.
///
/// The host asks about every item its store dispatches: whether it is a typed face of a Lua item (the
/// binding interceptor), whether it is a Lua item a recorder can describe (the journal). Asked of the
/// runtime, a conformance check of a generic type scans the conformance records or their cache every
/// time (1,100 to 1,500 instructions); a program has few item types, so the answers are kept.
///
/// Locked with a pthread mutex (`Lock`), which the thread sanitizer follows: it does not follow the
/// futex behind `Synchronization.Mutex`, and reported the memo's reads and writes under it as a race.
final class ItemTypeMemo<Answer>: @unchecked Sendable {
    // @unchecked Sendable: `answers` is touched only under `lock`; an answer is a metatype or a flag.
    private let lock = Lock()
    private var answers: [ObjectIdentifier: Answer] = [:]
    private let find: @Sendable (any Dispatchable.Type) -> Answer

    /// A memo of what `find` says of each type.
    init(_ find: @escaping @Sendable (any Dispatchable.Type) -> Answer) {
        self.find = find
    }

    /// What `find` says of `type`, asked once per type.
    func answer(for type: any Dispatchable.Type) -> Answer {
        let identity = ObjectIdentifier(type)
        lock.lock()
        let known = answers[identity]
        lock.unlock()
        if let known { return known }
        let found = find(type)
        lock.lock()
        answers[identity] = found
        lock.unlock()
        return found
    }
}

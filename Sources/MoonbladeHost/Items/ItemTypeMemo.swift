import Moonblade
import Synchronization

/// An answer about item types, found once per type and remembered.
///
/// The host asks about every item its store dispatches: whether it is a typed wrapper of a Lua item (the
/// binding interceptor), whether it is a Lua item a recorder can describe (the journal). Asked of the
/// runtime, a conformance check of a generic type scans the conformance records or their cache every
/// time (1,100 to 1,500 instructions); a program has few item types, so the answers are kept, in a short
/// list scanned under a lock.
final class ItemTypeMemo<Answer: Sendable>: Sendable {
    private let find: @Sendable (any Dispatchable.Type) -> Answer
    private let known = Mutex<[(type: ObjectIdentifier, answer: Answer)]>([])

    /// A memo of what `find` says of each type.
    init(_ find: @escaping @Sendable (any Dispatchable.Type) -> Answer) {
        self.find = find
    }

    /// What `find` says of `type`, asked once per type.
    func answer(for type: any Dispatchable.Type) -> Answer {
        let identity = ObjectIdentifier(type)
        if let answer = known.withLock({ $0.first { $0.type == identity }?.answer }) { return answer }
        let found = find(type)  // outside the lock: it may take a while, and another thread may ask meanwhile
        known.withLock { entries in
            if !entries.contains(where: { $0.type == identity }) { entries.append((identity, found)) }
        }
        return found
    }
}

import Moonblade
import Synchronization

/// An answer about item types, found once per type and remembered.
///
/// The host asks about every item its store dispatches: whether it is a typed wrapper of a Lua item (the
/// binding interceptor), whether it is a Lua item a recorder can describe (the journal). Asked of the
/// runtime, a conformance check of a generic type scans the conformance records or their cache every
/// time (1,100 to 1,500 instructions); a program has few item types, so the answers are kept.
///
/// Read without a lock: the answers are published as a list that never changes once published (an
/// atomic pointer, which the thread sanitizer follows), and a new type publishes a longer copy under
/// `lock`, a pthread mutex. Every list published is kept until the memo goes, since a reader may still
/// hold an older one: a program has few item types, so they stay small. Taking a lock and hashing the
/// type on each dispatch cost ~400 instructions; a look-up now costs a load and a short scan.
final class ItemTypeMemo<Answer>: @unchecked Sendable {
    // @unchecked Sendable: `lists` is touched only under `lock`; a published list never changes.

    /// The answers known when it was published.
    private final class Answers {
        let entries: [(type: ObjectIdentifier, answer: Answer)]

        init(_ entries: [(type: ObjectIdentifier, answer: Answer)]) {
            self.entries = entries
        }
    }

    private let find: @Sendable (any Dispatchable.Type) -> Answer
    private let latest: Atomic<Unmanaged<Answers>>
    private let lock = Lock()
    /// Every list published, the latest last: they keep the lists readers may hold alive.
    private var lists: [Answers]

    /// A memo of what `find` says of each type.
    init(_ find: @escaping @Sendable (any Dispatchable.Type) -> Answer) {
        self.find = find
        let empty = Answers([])
        lists = [empty]
        latest = Atomic(Unmanaged.passUnretained(empty))
    }

    /// What `find` says of `type`, asked once per type.
    func answer(for type: any Dispatchable.Type) -> Answer {
        let identity = ObjectIdentifier(type)
        let known = latest.load(ordering: .acquiring)._withUnsafeGuaranteedRef { answers in
            answers.entries.first { $0.type == identity }?.answer
        }
        return known ?? learn(type, identity)
    }

    /// Asks `find` about a type met for the first time and publishes the answer.
    private func learn(_ type: any Dispatchable.Type, _ identity: ObjectIdentifier) -> Answer {
        let found = find(type)
        lock.withLock {
            let entries = lists[lists.count - 1].entries
            guard !entries.contains(where: { $0.type == identity }) else { return }  // another thread was first
            let answers = Answers(entries + [(identity, found)])
            lists.append(answers)
            latest.store(Unmanaged.passUnretained(answers), ordering: .releasing)
        }
        return found
    }
}

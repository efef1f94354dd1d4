import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

@testable import MoonbladeHost

/// The memo of answers about item types, asked from many threads at once while new types are learnt.
@Suite("Item type memo")
struct ItemTypeMemoTests {
    struct Marked<Tag>: StateUpdater {
        func updateState(_ state: inout AppState) {}
    }
    enum A {}
    enum B {}
    enum C {}
    enum D {}

    /// The types asked about, and the answer each must get: its name.
    static let types: [any Dispatchable.Type] = [Marked<A>.self, Marked<B>.self, Marked<C>.self, Marked<D>.self, SetCounter.self]

    @Test func threadsLearningAndReadingAtOnceGetEachTypesOwnAnswer() async {
        let asked = Locked([String: Int]())
        let memo = ItemTypeMemo { type in
            let name = String(describing: type)
            asked.withLock { $0[name, default: 0] += 1 }
            return name
        }
        await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var rightAnswers = true
                    for round in 0..<2_000.scaledDownForSanitizers {
                        let type = Self.types[(worker + round) % Self.types.count]
                        rightAnswers = rightAnswers && memo.answer(for: type) == String(describing: type)
                    }
                    return rightAnswers
                }
            }
            for await rightAnswers in group { #expect(rightAnswers) }
        }
        // Each type asked of `find` once, or a few times when threads met it first together.
        let counts = asked.withLock { $0 }
        #expect(Set(counts.keys) == Set(Self.types.map { String(describing: $0) }))
        #expect(counts.values.allSatisfy { $0 <= 8 }, "\(counts)")
        // Once learnt, a type is never asked about again.
        for type in Self.types { _ = memo.answer(for: type) }
        #expect(asked.withLock { $0 } == counts)
    }
}

import Foundation
import Moonblade
import MoonbladeHost

/// A state that grows: a counter next to `items`, as in the mapping and state-growth benchmarks.
public struct ItemsState: State, Codable, Sendable, Equatable {
    public var counter = 0
    public var items: [BenchmarkItem] = []

    public init() {}

    /// A state holding `count` distinct items.
    public init(count: Int) {
        items = (0..<count).map {
            BenchmarkItem(id: $0, title: "item number \($0)", done: $0 % 2 == 0, score: Double($0) + 0.5)
        }
    }

    /// The dynamic twin of ``init(count:)``: the same state as a `JSONValue`.
    public static func json(count: Int) -> JSONValue {
        // A fixed value of plain fields always round-trips through JSON: `try!` cannot trap.
        try! JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(ItemsState(count: count)))
    }
}

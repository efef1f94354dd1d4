import Moonblade

/// The smallest state: one counter, as in the dispatch benchmarks.
public struct CounterState: State, Codable, Sendable {
    public var counter = 0

    public init() {}
}

/// A state that grows: a counter next to `items`, as in the mapping and state-growth benchmarks.
public struct ItemsState: State, Codable, Sendable, Equatable {
    public var counter = 0
    public var items: [BenchmarkItem] = []

    public init() {}

    /// A state holding `count` distinct items.
    public init(count: Int) {
        items = (0..<count).map { BenchmarkItem(id: $0, title: "item number \($0)", done: $0 % 2 == 0, score: Double($0) + 0.5) }
    }
}

/// One item of ``ItemsState``: one field of each scalar kind the mapping handles.
public struct BenchmarkItem: Codable, Sendable, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool
    public var score: Double

    public init(id: Int, title: String, done: Bool, score: Double) {
        self.id = id
        self.title = title
        self.done = done
        self.score = score
    }
}

/// The native twin of the Lua updater `bench.increment`.
public struct Increment<S: State & CounterHolding>: StateUpdater {
    public init() {}

    public func updateState(_ state: inout S) { state.counter += 1 }
}

/// A state with a `counter` field, so one `Increment` serves both benchmark states.
public protocol CounterHolding {
    var counter: Int { get set }
}

extension CounterState: CounterHolding {}
extension ItemsState: CounterHolding {}

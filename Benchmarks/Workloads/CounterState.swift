import Moonblade

/// The smallest state: one counter, as in the dispatch benchmarks.
public struct CounterState: State, Codable, Sendable {
    public var counter = 0

    public init() {}
}

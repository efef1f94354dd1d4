import Moonblade

/// The native twin of the Lua updater `bench.increment`.
public struct Increment<S: State & CounterHolding>: StateUpdater {
    public init() {}

    public func updateState(_ state: inout S) { state.counter += 1 }
}

/// A state with a `counter` field, so one ``Increment`` serves both benchmark states.
public protocol CounterHolding {
    var counter: Int { get set }
}

extension CounterState: CounterHolding {}
extension ItemsState: CounterHolding {}

import Benchmark
import BenchmarkSupport
import Workloads

/// Benchmark 1: a counter updater, native Swift against Lua (`bench.increment`), dispatched
/// fire-and-forget and awaited, to a store with 0 and with 100 listeners.
func registerUpdaterDispatch() {
    for listeners in [0, 100] {
        let native = Fixture { BenchmarkStores.native(initialState: CounterState(), listeners: listeners) }
        let lua = Fixture { try BenchmarkStores.lua(initialState: CounterState(), listeners: listeners) }
        let suffix = "\(listeners) listeners"

        Benchmark("Dispatch: native updater, fire-and-forget, \(suffix)", configuration: .micro) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { store.dispatch(Increment<CounterState>()) }
        }
        Benchmark("Dispatch: Lua updater, fire-and-forget, \(suffix)", configuration: .micro) { benchmark in
            let host = try lua.value()
            let before = host.state.counter
            for _ in benchmark.scaledIterations { try host.dispatch("bench.increment") }
            // Fire-and-forget drops the updater's errors: make sure every dispatch was applied.
            guard host.state.counter == before + benchmark.scaledIterations.count else { throw UpdatersNotApplied() }
        }
        Benchmark("Dispatch: native updater, awaited, \(suffix)", configuration: .micro) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { try await store.dispatch(Increment<CounterState>()).value }
        }
        Benchmark("Dispatch: Lua updater, awaited, \(suffix)", configuration: .micro) { benchmark in
            let host = try lua.value()
            for _ in benchmark.scaledIterations { try await host.dispatch("bench.increment").value }
        }
    }
}

/// Some fire-and-forget Lua dispatches did not change the state: the benchmark measured a failure.
struct UpdatersNotApplied: Error {}

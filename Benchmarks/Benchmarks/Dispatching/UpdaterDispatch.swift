import Benchmark
import BenchmarkSupport
import Workloads

/// Benchmark 1: a counter updater, native Swift against Lua (`bench.increment`), dispatched
/// fire-and-forget and awaited, to a store with 0 and with 100 listeners.
func registerUpdaterDispatch() {
    for listeners in [0, 100] {
        let native = Fixture { BenchmarkStores.native(initialState: CounterState(), listeners: listeners) }
        let lua = Fixture { try BenchmarkStores.lua(initialState: CounterState(), listeners: listeners) }
        let name = { (updater: String, mode: String) in
            "Dispatch: \(updater) updater, \(mode), \(listeners) listeners"
        }

        Benchmark(name("native", "fire-and-forget"), configuration: .micro) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { store.dispatch(Increment<CounterState>()) }
        }
        Benchmark(name("Lua", "fire-and-forget"), configuration: .micro) { benchmark in
            let host = try lua.value()
            let before = host.state.counter
            for _ in benchmark.scaledIterations { try host.dispatch("bench.increment") }
            // Fire-and-forget drops the updater's errors: make sure every dispatch was applied.
            guard host.state.counter == before + benchmark.scaledIterations.count else {
                throw UpdatersNotApplied()
            }
        }
        Benchmark(name("native", "awaited"), configuration: .micro) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { try await store.dispatch(Increment<CounterState>()).value }
        }
        Benchmark(name("Lua", "awaited"), configuration: .micro) { benchmark in
            let host = try lua.value()
            for _ in benchmark.scaledIterations { try await host.dispatch("bench.increment").value }
        }
    }
}

/// Some fire-and-forget Lua dispatches did not change the state: the benchmark measured a failure.
struct UpdatersNotApplied: Error {}

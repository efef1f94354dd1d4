import Benchmark
import BenchmarkSupport
import Workloads

/// Issue 11, benchmark 3: a Lua updater that changes one field (`bench.increment` on `counter`) as the
/// state beside it grows from 10 to 100,000 items, against the native updater on the same state.
/// A Lua updater maps the whole state into Lua and back, so its cost grows with the state.
let benchmarks: @Sendable () -> Void = {
    for count in [10, 1_000, 100_000] {
        let native = Fixture { BenchmarkStores.native(initialState: ItemsState(count: count)) }
        let lua = Fixture { try BenchmarkStores.lua(initialState: ItemsState(count: count)) }

        Benchmark("State growth \(count) items: native updater", configuration: .sized(count)) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { try await store.dispatch(Increment<ItemsState>()).value }
        }
        Benchmark("State growth \(count) items: Lua updater", configuration: .sized(count)) { benchmark in
            let host = try lua.value()
            for _ in benchmark.scaledIterations { try await host.dispatch("bench.increment").value }
        }
    }
}

import Benchmark
import BenchmarkSupport
import Workloads

/// A Lua updater that changes one field (`bench.increment` on
/// `counter`), and one that changes one item of the list (`bench.toggle`), as the state grows from 10
/// to 100,000 items, against the native updaters on the same state. Since the state lives in Lua
/// between dispatches, a Lua updater costs what it touches, not what the state holds.
///
/// A native updater followed by a Lua one shows what pushing the state again costs after Swift code
/// changed it.
///
/// The one-field updaters cost the same at every size, so they are measured the same way at every
/// size (1,000 dispatches per sample, as ``Benchmark/Configuration/micro``): their ratios compare
/// like with like. The one-item ones grow with the list and run fewer, single samples on large states.
let benchmarks: @Sendable () -> Void = {
    for count in [10, 1_000, 100_000] {
        let native = Fixture { BenchmarkStores.native(initialState: ItemsState(count: count)) }
        let lua = Fixture { try BenchmarkStores.lua(initialState: ItemsState(count: count)) }

        Benchmark("State growth \(count) items: native updater", configuration: .micro) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { try await store.dispatch(Increment<ItemsState>()).value }
        }
        Benchmark("State growth \(count) items: Lua updater", configuration: .micro) { benchmark in
            let host = try lua.value()
            for _ in benchmark.scaledIterations { try await host.dispatch("bench.increment").value }
        }
        Benchmark("State growth \(count) items: native updater, one item", configuration: .sized(count)) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { try await store.dispatch(ToggleItem(index: count / 2)).value }
        }
        // A Swift updater changes one field, then a Lua one runs: the state is pushed again, with the
        // tables of the collections the Swift updater left untouched.
        Benchmark("State growth \(count) items: native then Lua updater", configuration: .sized(count)) { benchmark in
            let host = try lua.value()
            for _ in benchmark.scaledIterations {
                try await host.store.dispatch(Increment<ItemsState>()).value
                try await host.dispatch("bench.increment").value
            }
        }
        Benchmark("State growth \(count) items: Lua updater, one item", configuration: .sized(count)) { benchmark in
            let host = try lua.value()
            for _ in benchmark.scaledIterations { try await host.dispatch("bench.toggle", ["at": count / 2 + 1]).value }
        }
    }
}

import Benchmark
import BenchmarkSupport
import Moonblade
import MoonbladeHost
import MoonbladeJournal
import Workloads

/// What the dispatch journal adds to an awaited Lua updater dispatch (`bench.increment`),
/// with group commit (each iteration ends with a flush, so the writer's work is inside the figure)
/// and with the strict setting (a synced commit per dispatch), on the dynamic state the command line
/// uses (`JSONValue`) and on a typed one (`CounterState`, encoded to JSON for each patch); then the
/// same next to 1,000 items (`ItemsState`), to show whether the journal's cost grows with the state.
let benchmarks: @Sendable () -> Void = {
    register(JSONValue.self, initialState: ["counter": 0], label: "JSONValue state")
    register(CounterState.self, initialState: CounterState(), label: "typed state")
    register(JSONValue.self, initialState: ItemsState.json(count: 1_000), label: "JSONValue state, 1,000 items")
    register(ItemsState.self, initialState: ItemsState(count: 1_000), label: "typed state, 1,000 items")
}

private func register<S: State & Codable>(_ type: S.Type, initialState: S, label: String) {
    let plain = Fixture { try BenchmarkStores.lua(initialState: initialState) }
    let grouped = Fixture { try JournaledStore(initialState: initialState, durability: .groupCommit) }
    let strict = Fixture { try JournaledStore(initialState: initialState, durability: .strict) }

    Benchmark("Journal: Lua updater, \(label), no journal", configuration: .micro) { benchmark in
        let host = try plain.value()
        for _ in benchmark.scaledIterations { try await host.dispatch("bench.increment").value }
    }
    Benchmark("Journal: Lua updater, \(label), group commit", configuration: .micro) { benchmark in
        let store = try grouped.value()
        for _ in benchmark.scaledIterations { try await store.host.dispatch("bench.increment").value }
        try store.journal.flush()
    }
    Benchmark("Journal: Lua updater, \(label), strict", configuration: .journalStrict) { benchmark in
        let store = try strict.value()
        for _ in benchmark.scaledIterations { try await store.host.dispatch("bench.increment").value }
    }
}

extension Benchmark.Configuration {
    /// A synced commit per dispatch takes a millisecond or so: one dispatch per iteration, up to 200.
    fileprivate static var journalStrict: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: moonbladeMetrics, timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
            maxDuration: .seconds(2), maxIterations: 200)
    }
}

import Benchmark
import BenchmarkSupport
import Moonblade
import Workloads

/// Lua updaters on the resident state (drafts, decoding only what changed) as the state
/// grows from 10 to 100,000 items, against the old full encode/decode on the same VM and against a
/// native Swift updater on a store. Engine only: no plugin host around it.
let benchmarks: @Sendable () -> Void = {
    for count in [10, 1_000, 100_000] {
        let workload = Fixture { try ResidentStateWorkload(count: count) }
        let native = Fixture { BenchmarkStores.native(initialState: ItemsState(count: count)) }

        for (change, label) in [
            (ResidentStateWorkload.Change.topLevelField, "one top-level field"), (.oneItem, "one item"), (.readEveryItem, "reading every item"),
        ] {
            Benchmark("Resident \(count) items: draft changes \(label)", configuration: .sized(count)) { benchmark in
                let workload = try workload.value()
                for _ in benchmark.scaledIterations { try workload.draft(change) }
            }
            Benchmark("Resident \(count) items: full encode/decode changes \(label)", configuration: .sized(count)) { benchmark in
                let workload = try workload.value()
                for _ in benchmark.scaledIterations { try workload.fullRoundTrip(change) }
            }
        }
        Benchmark("Resident \(count) items: native updater changes one item", configuration: .sized(count)) { benchmark in
            let store = try native.value()
            for _ in benchmark.scaledIterations { try await store.dispatch(ToggleItem(index: count / 2)).value }
        }
    }
}

import Benchmark
import BenchmarkSupport
import Workloads

/// Hot-reload latency under a steady dispatch load (``ReloadWorkload``), one
/// edit of the plugin per iteration.
///
/// Watched: from writing the plugin file to the first dispatch that runs the new code, through the
/// host's inotify watcher, with its default 50 ms debounce and with 10 ms, so the debounce's share
/// shows. Directly: `host.reload(plugin:)` alone (compile, shape check and swap), the file written
/// before the measurement starts.
let benchmarks: @Sendable () -> Void = {
    for debounce in [50, 10] {
        let fixture = Fixture { try ReloadWorkload(watchingWith: .milliseconds(debounce)) }
        Benchmark(
            "Reload: watched edit to new code active, \(debounce) ms debounce", configuration: .reload
        ) { _ in
            let workload = try fixture.value()
            try await workload.waitUntilActive(try workload.edit())
        } teardown: {
            fixture.builtValue?.stop()
        }
    }

    let direct = Fixture { try ReloadWorkload() }
    Benchmark("Reload: host.reload(plugin:) directly", configuration: .reload) { benchmark in
        let workload = try direct.value()
        let constant = try workload.edit()
        benchmark.startMeasurement()
        try await workload.reload()
        benchmark.stopMeasurement()
        // `reload` returns once the swap ran: the next dispatch must already run the new code.
        try await workload.waitUntilActive(constant, patience: .zero)
    } teardown: {
        direct.builtValue?.stop()
    }
}

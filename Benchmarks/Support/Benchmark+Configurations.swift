import Benchmark

/// What every Moonblade benchmark reports: wall time, throughput and mallocs.
public let moonbladeMetrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal]

extension Benchmark.Configuration {
    /// For operations of a microsecond or so: each measured iteration repeats the operation 1,000
    /// times (`benchmark.scaledIterations`), and the tool reports per operation (figures marked `*`;
    /// `--scale` shows them per iteration instead).
    public static var micro: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: moonbladeMetrics, warmupIterations: 1, scalingFactor: .kilo,
            maxDuration: .seconds(1), maxIterations: 1_000)
    }

    /// For operations on a state of `count` items: small states repeat like ``micro``, large ones run
    /// fewer iterations, so the whole suite stays within a few minutes.
    public static func sized(_ count: Int) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: moonbladeMetrics, warmupIterations: 1, scalingFactor: count <= 10 ? .kilo : .one,
            maxDuration: .seconds(count >= 100_000 ? 3 : 1), maxIterations: count >= 100_000 ? 15 : 1_000)
    }

    /// For a plugin reload: one reload per iteration, 100 of them, so that even p99 is a sample of its
    /// own; in microseconds, so that what a watched reload adds to its debounce shows.
    public static var reload: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: moonbladeMetrics, timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
            maxDuration: .seconds(30), maxIterations: 100)
    }
}

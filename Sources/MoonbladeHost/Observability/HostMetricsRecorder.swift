import Metrics

/// Records the host's metrics (named in ``MetricName``) through one metrics factory.
struct HostMetricsRecorder: Sendable {
    let factory: any MetricsFactory

    /// One Lua item's dispatch finished with `outcome` after `duration`.
    func dispatched(_ item: String, kind: String, outcome: String, duration: Duration) {
        Counter(
            label: MetricName.dispatches, dimensions: [("item", item), ("kind", kind), ("outcome", outcome)],
            factory: factory
        ).increment()
        Metrics.Timer(label: MetricName.dispatchDuration, dimensions: [("item", item)], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
    }

    /// Plugin code was stopped by the limit `kind` (`budget`, `memory` or `time`).
    func limitFailed(_ kind: String) {
        Counter(label: MetricName.limitFailures, dimensions: [("limit", kind)], factory: factory).increment()
    }

    /// A reload of `plugin` ended: `ok` or `failed`.
    func reloaded(_ plugin: String, outcome: String) {
        Counter(label: MetricName.reloads, dimensions: [("plugin", plugin), ("outcome", outcome)], factory: factory)
            .increment()
    }

    /// The VM holds `bytes` of memory.
    func vmMemory(_ bytes: Int) {
        Gauge(label: MetricName.vmMemory, factory: factory).record(bytes)
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating), as swift-metrics' timers take it.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (total, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : total.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}

import Foundation
import Metrics

/// `--metrics`: a metrics backend that keeps a running summary of every metric and prints it, one
/// line per metric and dimensions, sorted, when the command ends.
///
/// ```
/// metrics: moonblade_dispatches_total{item=todo.add,kind=updater,outcome=ok} 3
/// metrics: moonblade_dispatch_duration{item=todo.add} count 3, mean 0.21 ms, max 0.30 ms
/// metrics: moonblade_vm_memory_bytes 171532
/// ```
final class SummaryMetrics: MetricsFactory, @unchecked Sendable {
    // @unchecked Sendable: `metrics` is touched only inside `lock`.
    private let lock = NSLock()
    private var metrics: [String: Summary] = [:]

    /// What one metric (a label with its dimensions) has seen so far.
    private struct Summary {
        enum Kind { case counter, recorder, timer }
        var kind: Kind
        var count = 0
        var total = 0.0
        var maximum = -Double.infinity
        var last = 0.0
    }

    /// The handler of one metric, feeding its summary.
    private final class Handler: CounterHandler, RecorderHandler, TimerHandler {
        let key: String
        unowned let owner: SummaryMetrics

        init(key: String, owner: SummaryMetrics) {
            self.key = key
            self.owner = owner
        }

        func increment(by amount: Int64) { owner.record(Double(amount), for: key) }
        func reset() { owner.reset(key) }
        func record(_ value: Int64) { owner.record(Double(value), for: key) }
        func record(_ value: Double) { owner.record(value, for: key) }
        func recordNanoseconds(_ duration: Int64) { owner.record(Double(duration), for: key) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        handler(label, dimensions, .counter)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        handler(label, dimensions, .recorder)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        handler(label, dimensions, .timer)
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    /// The summary, one line per metric, sorted; empty when nothing was recorded.
    func lines() -> [String] {
        lock.withLock { metrics }.sorted { $0.key < $1.key }.compactMap { key, summary in
            guard summary.count > 0 else { return nil }
            switch summary.kind {
            case .counter:
                return "\(key) \(Int(summary.total))"
            case .recorder:
                return "\(key) \(Self.number(summary.last))"
            case .timer:
                let mean = TreeSpan.format(nanoseconds: UInt64(summary.total / Double(summary.count)))
                let maximum = TreeSpan.format(nanoseconds: UInt64(summary.maximum))
                return "\(key) count \(summary.count), mean \(mean), max \(maximum)"
            }
        }
    }

    private func handler(_ label: String, _ dimensions: [(String, String)], _ kind: Summary.Kind) -> Handler {
        let key = dimensions.isEmpty ? label : "\(label){\(dimensions.map { "\($0)=\($1)" }.joined(separator: ","))}"
        lock.withLock {
            if metrics[key] == nil { metrics[key] = Summary(kind: kind) }
        }
        return Handler(key: key, owner: self)
    }

    private func record(_ value: Double, for key: String) {
        lock.withLock {
            guard var summary = metrics[key] else { return }
            summary.count += 1
            summary.total += value
            summary.last = value
            summary.maximum = max(summary.maximum, value)
            metrics[key] = summary
        }
    }

    private func reset(_ key: String) {
        lock.withLock {
            metrics[key].map { metrics[key] = Summary(kind: $0.kind) }
        }
    }

    /// `171532`, or `0.5` for a fraction.
    private static func number(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }
}

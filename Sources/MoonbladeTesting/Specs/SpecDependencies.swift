import Foundation
import Logging
import Moonblade
import MoonbladeHost

/// The standard dependencies of a spec case's store, kept where the spec reaches them: `storage` in
/// memory, a `clock` the spec sets (it stands still at 1970-01-01T00:00:00Z until told otherwise) and
/// a `log` whose entries the spec reads back. A `stub` of the same name replaces one of them.
final class SpecDependencies: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only under `lock` (a pthread `Lock`, which the
    // thread sanitizer follows).
    private let lock = Lock()
    private var stored: [String: JSONValue] = [:]
    private var now = Date(timeIntervalSince1970: 0)
    private var entries: [JSONValue] = []

    /// The dependencies a plugin's side effects get as `ctx.deps`.
    var exposed: PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.exposeStorage(read: { [self] key in read(key) }, write: { [self] key, value in write(key, value) })
        dependencies.exposeClock { [self] in lock.withLock { now } }
        dependencies.exposeLog(
            Logger(label: "moonblade.spec.plugin") { [self] _ in
                // Every entry, each level included, with its fields.
                LogEntryHandler(logLevel: .trace) { event, metadata in
                    var fields = metadata.mapValues { JSONValue.string("\($0)") }
                    fields["level"] = .string(event.level.rawValue)
                    fields["message"] = .string("\(event.message)")
                    self.record(.object(fields))
                }
            })
        return dependencies
    }

    /// The value stored under `key`, nil when there is none.
    func read(_ key: String) -> JSONValue? {
        lock.withLock { stored[key] }
    }

    /// Stores `value` under `key`; nil removes it.
    func write(_ key: String, _ value: JSONValue?) {
        lock.withLock { stored[key] = value }
    }

    /// The clock's time.
    var time: Date {
        get { lock.withLock { now } }
        set { lock.withLock { now = newValue } }
    }

    /// What plugins logged so far, oldest first: `{ level = "info", message = "…", plugin = "todo", … }`
    /// with the entry's other fields.
    var log: [JSONValue] {
        lock.withLock { entries }
    }

    private func record(_ entry: JSONValue) {
        lock.withLock { entries.append(entry) }
    }
}

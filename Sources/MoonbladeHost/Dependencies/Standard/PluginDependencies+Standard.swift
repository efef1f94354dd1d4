import Foundation
import Logging

extension PluginDependencies {
    /// The dependencies the shipped plugins use: `storage` under `dataDirectory`, `clock` and `log`.
    public static func standard(dataDirectory: URL, logger: Logger) -> PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.exposeStorage(KeyValueStorage(directory: dataDirectory))
        dependencies.exposeClock()
        dependencies.exposeLog(logger)
        return dependencies
    }

    /// Exposes `storage` as `ctx.deps.storage.read { key = k }` (the value, or nil when there is none)
    /// and `ctx.deps.storage.write { key = k, value = v }` (a nil value removes the key).
    public mutating func exposeStorage(_ storage: KeyValueStorage) {
        exposeStorage(read: storage.read, write: storage.write)
    }

    /// Exposes `storage` as ``exposeStorage(_:)`` does, kept by `read` and `write` (a nil value removes
    /// the key): the spec runner's storage in memory.
    public mutating func exposeStorage(
        read: @escaping @Sendable (_ key: String) throws -> JSONValue?,
        write: @escaping @Sendable (_ key: String, _ value: JSONValue?) throws -> Void
    ) {
        expose("storage", "read") { (request: StorageRequest) throws in try read(request.key) }
        expose("storage", "write") { (request: StorageRequest) throws in try write(request.key, request.value) }
    }

    /// Exposes the time as `ctx.deps.clock.now()` (seconds since 1970 as a float) and
    /// `ctx.deps.clock.iso8601()` (`2026-11-21T15:30:00Z`). Pass `now` to control time in tests.
    public mutating func exposeClock(now: @escaping @Sendable () -> Date = Date.init) {
        expose("clock", "now") { now().timeIntervalSince1970 }
        expose("clock", "iso8601") { now().formatted(.iso8601) }
    }

    /// Exposes `logger` as `ctx.deps.log.<level>(message)` for every swift-log level (`trace`, `debug`,
    /// `info`, `notice`, `warning`, `error`, `critical`). The message is a string, or a table
    /// `{ message = "...", <key> = <value>, ... }` whose other fields become the entry's metadata.
    /// Each entry also has `plugin`: the folder of the plugin that logged it.
    public mutating func exposeLog(_ logger: Logger) {
        for level in Logger.Level.allCases {
            exposeNamingCaller("log", level.rawValue, shape: LogEntry.shape) { (entry: LogEntry, plugin: String?) in
                var metadata = entry.metadata ?? [:]
                if let plugin { metadata["plugin"] = .string(plugin) }
                logger.log(level: level, "\(entry.message)", metadata: metadata)
            }
        }
    }
}

/// The argument of `storage.read` and `storage.write`.
private struct StorageRequest: Decodable, Sendable {
    var key: String
    var value: JSONValue?
}

/// The argument of `log.<level>`: a message alone, or a table with a message and metadata fields.
private struct LogEntry: Decodable, Sendable {
    var message: String
    var metadata: Logger.Metadata?

    /// `string|moonblade.types.LogEntry` (a `message` and any other fields), as editor types spell it:
    /// the probe reads the decoder's first question, a string, and would stop there.
    static let shape = LuaShape.oneOf([
        .string, .partialObject(name: "LogEntry", fields: [LuaShape.Field(name: "message", shape: .string)]),
    ])

    init(from decoder: any Decoder) throws {
        if let message = try? decoder.singleValueContainer().decode(String.self) {
            self.message = message
            return
        }
        var fields = try decoder.singleValueContainer().decode([String: JSONValue].self)
        guard case .string(let message)? = fields.removeValue(forKey: "message") else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "a log entry needs a message string"))
        }
        self.message = message
        metadata =
            fields.isEmpty
            ? nil
            : fields.mapValues { value in
                if case .string(let text) = value { return .string(text) }
                return .string(value.jsonString())
            }
    }
}

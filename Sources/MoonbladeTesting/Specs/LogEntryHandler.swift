import Logging

/// A log handler that hands each entry at or above `logLevel`, with the handler's metadata merged
/// under the entry's own, to `record`: how a spec keeps what its store logs.
struct LogEntryHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let record: @Sendable (LogEvent, Logger.Metadata) -> Void

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        record(event, metadata.merging(event.metadata ?? [:]) { $1 })
    }
}

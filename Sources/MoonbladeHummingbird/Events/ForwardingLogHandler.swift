import Logging

/// A log handler that passes every entry on to the application's handler and also sends the
/// failures (from `error` up) to the event stream, leaving out the host's reload and load reports,
/// which the stream has as reload events.
struct ForwardingLogHandler: LogHandler {
    var base: any LogHandler
    let events: HostEvents

    /// The application's level, or `error` if it is higher: the stream gets failures whatever the log shows.
    var logLevel: Logger.Level {
        get { min(base.logLevel, .error) }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level >= base.logLevel { base.log(event: event) }
        guard event.level >= .error, event.metadata?["reload"] == nil, event.metadata?["load"] == nil else { return }
        let fields = base.metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        events.publish(.logged(level: event.level, message: "\(event.message)", metadata: fields.mapValues { "\($0)" }))
    }
}

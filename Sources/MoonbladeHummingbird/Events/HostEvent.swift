import Logging
import Moonblade
import MoonbladeHost
import MoonbladeJournal

/// One event of the live stream, as the host reported it: turned into JSON only by ``json()``, on
/// the client's task.
enum HostEvent: Sendable {
    case dispatch(DispatchEvent)
    case reload(PluginReloadEvent)
    /// The span tree of a dispatch reported before it ended (a side effect's).
    case spans(DispatchRecord, EventSpan)
    /// A failure the host could only log.
    case logged(level: Logger.Level, message: String, metadata: [String: String])

    /// The event's JSON message.
    func json() -> JSONValue {
        switch self {
        case .dispatch(let event): event.json()
        case .reload(let event): Self.json(event)
        case .spans(let record, let spans): ["type": "spans", "id": .integer(Int64(record.id)), "spans": spans.json()]
        case .logged(let level, let message, let metadata):
            [
                "type": "log", "level": .string(level.rawValue), "message": .string(message),
                "plugin": metadata["plugin"].map(JSONValue.string) ?? .null,
                "metadata": .object(metadata.mapValues(JSONValue.string)),
            ]
        }
    }

    private static func json(_ event: PluginReloadEvent) -> JSONValue {
        var members: [String: JSONValue] = ["type": "reload", "plugin": .string(event.plugin)]
        switch event.step {
        case .started: members["outcome"] = "started"
        case .succeeded(let info), .loaded(let info):
            members["outcome"] = "succeeded"
            members["version"] = .integer(Int64(info.version))
        case .migrated(_, let from, let to):
            members["outcome"] = "migrated"
            members["from"] = .integer(Int64(from))
            members["version"] = .integer(Int64(to))
        case .failed(_, let error), .refused(_, let error):
            members["outcome"] = "failed"
            members["error"] = errorJSON(error)
        }
        members["cause"] = event.cause == .watcher ? "watcher" : "call"
        return .object(members)
    }
}

/// A dispatch as the interceptor saw it: raw values, read into JSON later.
struct DispatchEvent: Sendable {
    enum Outcome: Sendable {
        /// An updater that changed (or kept) the state.
        case applied
        /// A side effect that started running.
        case started
        case failed(any Error)
    }

    let item: RecordedItem
    let outcome: Outcome
    let duration: Duration
    /// 0 for an item nobody caused (a route, Swift code); more for a reaction's.
    let cascadeDepth: Int
    /// The state before and after an applied updater.
    let change: (old: any State, new: any State)?
    /// Its id and who dispatched it.
    let record: DispatchRecord
    /// Its span tree, when it had ended by the time it was reported.
    let spans: EventSpan?

    func json() -> JSONValue {
        var members: [String: JSONValue] = [
            "type": "dispatch", "item": .string(item.name), "kind": item.isUpdater ? "updater" : "side_effect",
            "durationMicroseconds": .integer(duration.wholeMicroseconds),
            "origin": .string(record.origin.rawValue), "cascadeDepth": .integer(Int64(cascadeDepth)),
            "id": .integer(Int64(record.id)), "parent": record.parentID.map { .integer(Int64($0)) } ?? .null,
        ]
        if let spans { members["spans"] = spans.json() }
        members["payload"] = (try? item.payloadJSON()) ?? .null
        if let plugin = item.plugin {
            members["plugin"] = ["name": .string(plugin.name), "version": .integer(Int64(plugin.version))]
        }
        switch outcome {
        case .applied: members["outcome"] = "applied"
        case .started: members["outcome"] = "started"
        case .failed(let error):
            members["outcome"] = "failed"
            members["error"] = errorJSON(error)
        }
        if let change, let old = change.old as? any Encodable, let new = change.new as? any Encodable,
            let oldJSON = try? JSONValue(encoding: old), let newJSON = try? JSONValue(encoding: new)
        {
            members["diff"] = StatePatch(from: oldJSON, to: newJSON).json
        }
        return .object(members)
    }
}

/// An error as the stream and the problem documents show it: its message, and for a plugin's error
/// its kind, plugin, item and `file:line`.
func errorJSON(_ error: any Error) -> JSONValue {
    guard let error = error as? PluginError else { return ["message": .string(String(describing: error))] }
    var members: [String: JSONValue] = ["message": .string(error.message), "kind": .string(String(describing: error.kind))]
    if let plugin = error.plugin { members["plugin"] = .string(plugin) }
    if let item = error.item { members["item"] = .string(item) }
    if let location = error.location { members["location"] = .string(location.description) }
    return .object(members)
}

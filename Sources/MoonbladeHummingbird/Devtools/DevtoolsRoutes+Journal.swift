import Foundation
import Hummingbird
import MoonbladeHost
import MoonbladeJournal
import NIOCore

extension DevtoolsRoutes {
    /// `GET journal?last=N`: the last N entries (200 by default, at most 5,000), oldest first, with
    /// `position` (the sequence whose state the store holds) and `last`.
    func history(_ request: Request) throws -> Response {
        let timeTravel = try journaled(request)
        let last = request.uri.queryParameters["last"].flatMap { Int($0) } ?? 200
        guard (1...5000).contains(last) else {
            throw Problem(.badRequest, title: "bad range", detail: "last must be from 1 through 5000, not \(last)")
        }
        do {
            let entries = try timeTravel.history(last: last)
            return Response(json: [
                "position": .integer(Int64(try timeTravel.position())),
                "last": .integer(Int64(timeTravel.journal.lastSequence)),
                "entries": .array(entries.map(Self.json)),
            ])
        } catch {
            throw Self.problem(error)
        }
    }

    /// `GET journal/{sequence}/state`: the state as of that entry, as recorded (no plugin code runs).
    func state(_ request: Request, _ context: some RequestContext) throws -> Response {
        let timeTravel = try journaled(request)
        let sequence = try Self.sequence(context)
        do {
            guard let state = try timeTravel.journal.state(at: sequence) else {
                throw JournalError(file: timeTravel.journal.file, problem: "no state recorded as of \(sequence)")
            }
            return Response(json: state)
        } catch {
            throw Self.problem(error)
        }
    }

    /// `POST journal/{sequence}/jump`: the state as of that entry put back by the journal's time
    /// travel, which no observer rule sees and which starts no side effect; answers the new `position`.
    func jump(_ request: Request, _ context: some RequestContext) async throws -> Response {
        let timeTravel = try journaled(request)
        let sequence = try Self.sequence(context)
        do {
            try await timeTravel.goto(sequence)
            return Response(json: ["position": .integer(Int64(try timeTravel.position()))])
        } catch {
            throw Self.problem(error)
        }
    }

    /// `GET journal/spec?plugin=NAME`: the Lua spec `moonblade journal to-spec` writes for the
    /// plugin's recorded updater dispatches.
    func spec(_ request: Request) throws -> Response {
        let timeTravel = try journaled(request)
        guard let plugin = request.uri.queryParameters["plugin"].map(String.init), !plugin.isEmpty else {
            throw Problem(.badRequest, title: "no plugin", detail: "name the plugin: journal/spec?plugin=NAME")
        }
        let source: String
        do {
            source = try JournalSpecWriter.spec(from: timeTravel.journal, plugin: plugin)
        } catch {
            throw Self.problem(error)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/x-lua; charset=utf-8", .contentDisposition: "attachment; filename=\"\(plugin)_recorded_spec.lua\""],
            body: ResponseBody(byteBuffer: ByteBuffer(string: source)))
    }

    /// The time travel, once `request` has shown the token; 404 when the host has no journal.
    private func journaled(_ request: Request) throws(Problem) -> TimeTravel<S> {
        try routes.authorize(request)
        guard let timeTravel else {
            throw Problem(.notFound, title: "no journal", detail: "this host records no journal: start it with one for time travel")
        }
        return timeTravel
    }

    private static func sequence(_ context: some RequestContext) throws(Problem) -> Int {
        let text = context.parameters.get("sequence") ?? ""
        guard let sequence = Int(text), sequence >= 0 else {
            throw Problem(.badRequest, title: "bad sequence", detail: "\(text) is not an entry's sequence")
        }
        return sequence
    }

    /// A journal's error as 404 (an entry it does not have) or 422 (a migration or a plugin's error).
    private static func problem(_ error: any Error) -> Problem {
        if let error = error as? JournalError {
            return Problem(.notFound, title: "journal", detail: "\(error)")
        }
        var members = errorJSON(error).objectMembers
        members["message"] = nil
        return Problem(.unprocessableContent, title: "time travel failed", detail: "\(error) (the state is as it was)", members: members)
    }

    /// An entry as the page shows it.
    static func json(_ entry: JournalEntry) -> JSONValue {
        var members: [String: JSONValue] = [
            "sequence": .integer(Int64(entry.sequence)), "item": .string(entry.name),
            "time": .double(entry.time.timeIntervalSince1970), "kind": .string(entry.kind.rawValue),
            "payload": entry.payload ?? .null, "diff": entry.patch.json,
            "durationMicroseconds": .integer(entry.duration.wholeMicroseconds),
        ]
        if let plugin = entry.plugin {
            members["plugin"] = ["name": .string(plugin), "version": .integer(Int64(entry.pluginVersion ?? 1))]
        }
        switch entry.outcome {
        case .applied: members["outcome"] = "applied"
        case .started: members["outcome"] = "started"
        case .failed(let message):
            members["outcome"] = "failed"
            members["error"] = ["message": .string(message)]
        }
        if let target = entry.target { members["target"] = .integer(Int64(target)) }
        return .object(members)
    }
}

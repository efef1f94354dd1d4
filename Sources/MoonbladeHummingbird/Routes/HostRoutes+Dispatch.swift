import HTTPTypes
import Hummingbird
import MoonbladeHost
import NIOCore

extension HostRoutes {
    /// `POST dispatch/{item}`: the item run with the body as its payload.
    func dispatch(_ request: Request, _ context: some RequestContext) async throws -> Response {
        try authorize(request)
        let name = context.parameters.get("item") ?? ""
        let payload = try await payload(of: request)
        do {
            switch host.kind(of: name) {
            case .luaSideEffect:
                let handle = try HostEvents.dispatchingOverHTTP { try host.dispatch(name, payload, returning: JSONValue.self) }
                let value = try await handle.value
                return value == .null ? Response(status: .noContent) : Response(json: value)
            case .luaUpdater, .swift, nil:
                // An unknown name throws here, before anything runs.
                try await HostEvents.dispatchingOverHTTP { try host.dispatch(name, payload) }.value
                return Response(status: .noContent)
            }
        } catch {
            throw Problem.dispatchFailed(error, itemNames: itemNames)
        }
    }

    /// The request's JSON body, nil when it has none.
    ///
    /// The body is read as JSON whatever its `Content-Type` says (curl's `-d` says a form).
    ///
    /// - Throws: 413 for a body over the limit, 400 for one that is not JSON, naming its fault
    ///   (`line 1, column 9: …`).
    func payload(of request: Request) async throws(Problem) -> JSONValue? {
        let limit = configuration.maxBodySize
        let tooLarge = Problem(
            .contentTooLarge, title: "body too large", detail: "the body is over the limit of \(limit) bytes",
            members: ["limit": .integer(Int64(limit))])
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw tooLarge }
        let body: [UInt8]
        do {
            body = Array(buffer: try await request.body.collect(upTo: limit))
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge
        } catch {
            throw Problem(.badRequest, title: "unreadable body", detail: "the body could not be read: \(error)")
        }
        guard body.contains(where: { !Self.isJSONSpace($0) }) else { return nil }
        do {
            return try JSONValue(json: body)
        } catch {
            throw Problem(.badRequest, title: "malformed JSON", detail: "the body is not JSON: \(error)")
        }
    }

    private static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

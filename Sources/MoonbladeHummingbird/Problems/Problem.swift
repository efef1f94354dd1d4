import HTTPTypes
import Hummingbird
import MoonbladeHost
import NIOCore

/// An error answer as `application/problem+json` (RFC 9457): a status, a short title, a detail
/// naming what is wrong, and members of its own (the item, the plugin, `file:line`, suggestions).
///
/// Thrown from a route, Hummingbird answers with it.
public struct Problem: Error, HTTPResponseError, CustomStringConvertible {
    /// The answer's status.
    public var status: HTTPResponse.Status
    /// A short, stable summary of the problem's kind (`unknown item`).
    public var title: String
    /// What is wrong with this request, in one line.
    public var detail: String
    /// Members beyond the standard ones: `item`, `plugin`, `location`, `suggestions`, …
    public var members: [String: JSONValue]
    /// Headers the answer carries besides its content type (`WWW-Authenticate`).
    public var headers: HTTPFields

    /// A problem answered with `status`.
    public init(
        _ status: HTTPResponse.Status, title: String, detail: String, members: [String: JSONValue] = [:],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.title = title
        self.detail = detail
        self.members = members
        self.headers = headers
    }

    /// The problem document.
    public var json: JSONValue {
        var document = members
        document["type"] = .string("urn:moonblade:problem:" + title.lowercased().replacing(" ", with: "-"))
        document["title"] = .string(title)
        document["status"] = .integer(Int64(status.code))
        document["detail"] = .string(detail)
        return .object(document)
    }

    /// `status title: detail`, on one line.
    public var description: String { "\(status.code) \(title): \(detail)" }

    /// The problem document as Hummingbird's answer.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        var bytes: [UInt8] = []
        json.writeJSON(to: &bytes)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

import HTTPTypes
import Hummingbird
import NIOCore

/// The page's three files, compiled into the library, each answered with headers that keep it to its
/// own origin: nothing loads from elsewhere, no other site may frame it, no referrer leaves it.
struct DevtoolsPage: Sendable {
    let bytes: [UInt8]
    let contentType: String

    static let html = DevtoolsPage(bytes: PackageResources.devtools_html, contentType: "text/html; charset=utf-8")
    static let script = DevtoolsPage(bytes: PackageResources.devtools_js, contentType: "text/javascript; charset=utf-8")
    static let style = DevtoolsPage(bytes: PackageResources.devtools_css, contentType: "text/css; charset=utf-8")

    /// The file as a 200 answer.
    var response: Response {
        let headers: HTTPFields = [
            .contentType: contentType,
            .contentSecurityPolicy:
                "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            .cacheControl: "no-store",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

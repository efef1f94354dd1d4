import HTTPTypes
import Hummingbird

extension HostRoutes {
    /// Refuses `request` with 401 unless it carries the configured bearer token (any request passes
    /// when none is configured). The token is compared in constant time.
    func authorize(_ request: Request) throws(Problem) {
        guard let token = configuration.token else { return }
        let given = request.headers[.authorization].flatMap { value -> Substring? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return parts[1]
        }
        guard let given, Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            throw Problem(
                .unauthorized, title: "unauthorized",
                detail: given == nil ? "this route needs Authorization: Bearer <token>" : "the bearer token is not the server's",
                headers: [.wwwAuthenticate: "Bearer"])
        }
    }

    /// Refuses a browser's `request` with 403 when its `Origin` is neither the server's own (the
    /// request's `Host`) nor an allowed one.
    func checkOrigin(_ request: Request) throws(Problem) {
        guard let origin = request.headers[.origin] else { return }
        if configuration.allowedOrigins.contains(origin) { return }
        // HTTP/1 `Host` becomes the authority on the way in; a request made in memory may keep the header.
        let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!]
        let originHost = origin.split(separator: "://", maxSplits: 1).last.map(String.init)
        guard let host, originHost == host else {
            throw Problem(
                .forbidden, title: "cross-origin",
                detail: "the event stream accepts pages of its own origin; \(origin) is not \(host ?? "this server")")
        }
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}


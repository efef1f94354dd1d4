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
    /// request's `Host`) nor an allowed one. An origin without a port matches the host on any port
    /// (WebSocket clients outside browsers send `ws://localhost` for `localhost:8080`).
    func checkOrigin(_ request: Request) throws(Problem) {
        guard let origin = request.headers[.origin] else { return }
        if configuration.allowedOrigins.contains(origin) { return }
        // HTTP/1 `Host` becomes the authority on the way in; a request made in memory keeps the header.
        let host = request.headers[HTTPField.Name("Host")!] ?? request.head.authority
        let originHost = origin.split(separator: "://", maxSplits: 1).last.map(String.init)
        guard let host, let originHost, Self.sameHost(originHost, host) else {
            throw Problem(
                .forbidden, title: "cross-origin",
                detail: "the event stream accepts pages of its own origin; \(origin) is not \(host ?? "this server")")
        }
    }

    /// Whether the origin's `host[:port]` names the server's `host[:port]`.
    private static func sameHost(_ origin: String, _ server: String) -> Bool {
        func name(_ authority: String) -> Substring {
            authority.hasPrefix("[") ? authority.prefix { $0 != "]" } : authority.prefix { $0 != ":" }
        }
        let originHasPort = origin.hasPrefix("[") ? origin.contains("]:") : origin.contains(":")
        return originHasPort ? origin.lowercased() == server.lowercased() : name(origin).lowercased() == name(server).lowercased()
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}


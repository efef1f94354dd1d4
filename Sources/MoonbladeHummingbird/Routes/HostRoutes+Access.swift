import HTTPTypes
import Hummingbird

extension HostRoutes {
    /// Refuses `request` with 401 unless it carries the configured bearer token (any request passes
    /// when none is configured). The token is compared in constant time.
    func authorize(_ request: Request) throws(Problem) {
        guard let token = configuration.token else { return }
        let given = Self.bearerToken(of: request)
        guard let given, Self.constantTimeEqual(given, Array(token.utf8)) else {
            throw Problem(
                .unauthorized, title: "unauthorized",
                detail: given == nil ? "this route needs Authorization: Bearer <token>" : "the bearer token is not the server's",
                headers: [.wwwAuthenticate: "Bearer"])
        }
    }

    /// The subprotocol a browser's WebSocket offers with its token (see ``bearerToken(of:)``), which
    /// the event stream names back as the one it speaks.
    static var webSocketProtocol: String { "moonblade" }

    /// The token `request` carries: from `Authorization: Bearer <token>`, else from a
    /// `Sec-WebSocket-Protocol` offer `moonblade.bearer.<the token's UTF-8 in hex>`, since a browser's
    /// WebSocket cannot set headers (and no page script can set a `Sec-` header on other requests).
    static func bearerToken(of request: Request) -> [UInt8]? {
        if let value = request.headers[.authorization] {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return Array(parts[1].utf8)
        }
        let prefix = webSocketProtocol + ".bearer."
        let offers = request.headers[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }
        guard let offer = offers.lazy.map({ $0.trimmingPrefix(" ") }).first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return hexBytes(offer.dropFirst(prefix.count))
    }

    /// Whether `request` offers the ``webSocketProtocol`` subprotocol.
    static func offersWebSocketProtocol(_ request: Request) -> Bool {
        request.headers[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }
            .contains { $0.trimmingPrefix(" ") == webSocketProtocol }
    }

    /// The bytes that `hex` spells two digits each; nil for anything else.
    private static func hexBytes(_ hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
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

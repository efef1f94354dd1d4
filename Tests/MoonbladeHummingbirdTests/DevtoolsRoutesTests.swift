import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import MoonbladeHost
import MoonbladeHummingbird
import NIOCore
import Testing

/// The devtools page's routes: its files, what a request may do, the journal's routes, and the event
/// stream opened the way a browser opens it (the token in a subprotocol). The page itself is driven in
/// a real browser by Scripts/browser-test.
@Suite struct DevtoolsRoutesTests {
    let bearer: HTTPFields = [.authorization: "Bearer t"]

    @Test func thePageAndItsFilesAreServedToTheirOwnOriginOnly() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/devtools", method: .get) {
                #expect($0.status == .ok)
                #expect($0.headers[.contentType] == "text/html; charset=utf-8")
                #expect(String(buffer: $0.body).contains(#"<script src="devtools/devtools.js" defer></script>"#))
                let policy = $0.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("default-src 'none'"))
                #expect(policy.contains("connect-src 'self'"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect($0.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            }
            try await client.execute(uri: "/devtools/devtools.js", method: .get) {
                #expect($0.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(String(buffer: $0.body).contains("sessionStorage"))
            }
            try await client.execute(uri: "/devtools/devtools.css", method: .get) {
                #expect($0.headers[.contentType] == "text/css; charset=utf-8")
            }
        }
    }

    @Test func accessSaysWhetherTheRequestMayChangeTheState() async throws {
        let shop = try ShopFixture()
        try await shop.application(.init(token: "t")).test(.router) { client in
            try await client.execute(uri: "/devtools/access", method: .get) {
                #expect($0.body.json == ["write": false, "tokenRequired": true, "journal": false])
            }
            try await client.execute(uri: "/devtools/access", method: .get, headers: [.authorization: "Bearer nope"]) {
                #expect($0.body.json.members["write"] == false)
            }
            try await client.execute(uri: "/devtools/access", method: .get, headers: bearer) {
                #expect($0.body.json == ["write": true, "tokenRequired": true, "journal": false])
            }
        }
    }

    @Test func anEntrysStateAndAJumpBackToIt() async throws {
        let shop = try ShopFixture(journaled: true)
        try await shop.host.dispatch("shop.add", ["n": 2]).value
        try await shop.host.dispatch("shop.add", ["n": 3]).value
        try await shop.application(.init(token: "t")).test(.router) { client in
            try await client.execute(uri: "/journal", method: .get, headers: bearer) {
                #expect($0.status == .ok)
                let history = $0.body.json.members
                #expect(history["position"] == 2)
                guard case .array(let entries) = history["entries"], entries.count == 2 else {
                    Issue.record("entries: \(String(describing: history["entries"]))")
                    return
                }
                #expect(entries[1].members["item"] == "shop.add")
                #expect(entries[1].members["payload"] == ["n": 3])
                #expect(entries[1].members["plugin"] == ["name": "shop", "version": 1])
                #expect(entries[1].members["diff"] == [[["count"], 5]])
            }
            try await client.execute(uri: "/journal/1/state", method: .get, headers: bearer) {
                #expect($0.body.json == ["count": 2])
            }
            try await client.execute(uri: "/journal/1/jump", method: .post, headers: bearer) {
                #expect($0.status == .ok)
                #expect($0.body.json == ["position": 1])
            }
            #expect(shop.count == 2)
            try await client.execute(uri: "/journal/spec?plugin=shop", method: .get, headers: bearer) {
                #expect($0.headers[.contentType] == "text/x-lua; charset=utf-8")
                #expect(String(buffer: $0.body).contains(#"apply_updater(recorded, "shop.add""#))
            }
        }
    }

    @Test func theJournalsRoutesNeedTheTokenAndRefuseWhatTheJournalLacks() async throws {
        let shop = try ShopFixture(journaled: true)
        try await shop.host.dispatch("shop.add", ["n": 2]).value
        try await shop.application(.init(token: "t")).test(.router) { client in
            try await client.execute(uri: "/journal/1/jump", method: .post) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/journal", method: .get) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/journal/99/jump", method: .post, headers: bearer) {
                #expect($0.status == .notFound)
                #expect($0.body.json.members["detail"]?.text?.contains("no entry 99") == true)
            }
            try await client.execute(uri: "/journal/x/state", method: .get, headers: bearer) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/journal?last=0", method: .get, headers: bearer) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/journal/spec", method: .get, headers: bearer) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/journal/spec?plugin=nobody", method: .get, headers: bearer) {
                #expect($0.status == .notFound)
            }
        }
        #expect(shop.count == 2)
        let unjournaled = try ShopFixture()
        try await unjournaled.application(.init(token: "t")).test(.router) { client in
            try await client.execute(uri: "/journal/0/jump", method: .post, headers: bearer) {
                #expect($0.status == .notFound)
                #expect($0.body.json.members["title"] == "no journal")
            }
        }
    }

    @Test func aBrowsersStreamCarriesItsTokenInASubprotocol() async throws {
        let shop = try ShopFixture()
        try await shop.application(.init(token: "t")).test(.live) { client in
            // "t" is 0x74: what the page's script sends, as a browser's WebSocket cannot set headers.
            let offered = WebSocketClientConfiguration(additionalHeaders: [.secWebSocketProtocol: "moonblade, moonblade.bearer.74"])
            try await client.ws("/events", configuration: offered) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                guard case .text(let hello) = try await messages.next() else {
                    Issue.record("no hello")
                    return
                }
                #expect(try JSONValue(json: hello).members["type"] == "hello")
                try await outbound.close(.normalClosure, reason: nil)
            }
            for wrong in ["moonblade, moonblade.bearer.75", "moonblade, moonblade.bearer.7", "moonblade, moonblade.bearer.zz"] {
                let configuration = WebSocketClientConfiguration(additionalHeaders: [.secWebSocketProtocol: wrong])
                await #expect(throws: (any Error).self, "\(wrong)") {
                    try await client.ws("/events", configuration: configuration) { _, _, _ in }
                }
            }
        }
    }

    @Test func theStreamNamesTheSubprotocolBackOnlyWhenOffered() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            let upgrade: HTTPFields = [
                .connection: "Upgrade", .upgrade: "websocket", .secWebSocketVersion: "13",
                .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==",
            ]
            var offered = upgrade
            offered[.secWebSocketProtocol] = "moonblade"
            try await client.execute(uri: "/events", method: .get, headers: offered) {
                #expect($0.headers[.secWebSocketProtocol] == "moonblade")
            }
            try await client.execute(uri: "/events", method: .get, headers: upgrade) {
                #expect($0.headers[.secWebSocketProtocol] == nil)
            }
        }
    }
}

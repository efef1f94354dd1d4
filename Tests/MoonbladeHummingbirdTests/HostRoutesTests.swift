import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MoonbladeHost
import MoonbladeHummingbird
import NIOCore
import Testing

/// The routes through Hummingbird's router test client: dispatch, state, plugins, reload, and every
/// error as problem+json that leaves the state alone.
@Suite struct HostRoutesTests {
    let json: HTTPFields = [.contentType: "application/json"]

    @Test func anUpdaterAnswersNoContentAndChangesTheState() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/dispatch/shop.add", method: .post, headers: json, body: ByteBuffer(json: #"{"n": 3}"#)) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/state", method: .get) {
                #expect($0.status == .ok)
                #expect($0.headers[.contentType] == "application/json")
                #expect($0.body.json == ["count": 3])
            }
            try await client.execute(uri: "/state?pointer=/count", method: .get) {
                #expect($0.body.json == 3)
            }
        }
    }

    @Test func aSideEffectAnswersWithItsValue() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: ByteBuffer(json: #"{"n": 2}"#)) { _ in }
            try await client.execute(uri: "/dispatch/shop.count", method: .post) {
                #expect($0.status == .ok)
                #expect($0.body.json == ["count": 2])
            }
        }
    }

    @Test func aPluginErrorIsAProblemWithItsPlaceAndChangesNothing() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: ByteBuffer(json: #"{"n": "x"}"#)) {
                #expect($0.status == .unprocessableContent)
                #expect($0.headers[.contentType] == "application/problem+json")
                let problem = $0.body.json.members
                #expect(problem["item"] == "shop.add")
                #expect(problem["plugin"] == "shop")
                #expect(problem["location"] == "shop/plugin.lua:5")
                #expect(problem["status"] == 422)
                #expect("\(problem["detail"] ?? .null)".contains("n must be an integer"))
            }
            try await client.execute(uri: "/dispatch/shop.fail", method: .post) {
                #expect($0.status == .unprocessableContent)
                #expect($0.body.json.members["location"] == "shop/plugin.lua:11")
            }
        }
        #expect(shop.count == 0)
    }

    @Test func anUnknownItemIsNotFoundWithWhatItMayHaveMeant() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/dispatch/shop.ad", method: .post) {
                #expect($0.status == .notFound)
                let problem = $0.body.json.members
                #expect(problem["suggestions"] == ["shop.add"])
                #expect("\(problem["detail"] ?? .null)".contains("did you mean shop.add?"))
            }
        }
    }

    @Test(arguments: [
        (#"{"n": 1"#, "malformed JSON"), (#"{"n": 1} x"#, "malformed JSON"), ("[1,]", "malformed JSON"),
    ])
    func aMalformedBodyIsABadRequestNamingItsFault(body: String, title: String) async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: ByteBuffer(json: body)) {
                #expect($0.status == .badRequest)
                let problem = $0.body.json.members
                #expect(problem["title"] == .string(title))
                #expect("\(problem["detail"] ?? .null)".contains("line 1"))
            }
        }
        #expect(shop.count == 0)
    }

    @Test func aBodyThatIsNotUTF8IsABadRequest() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            let body = ByteBuffer(bytes: Array(#"{"n": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8))
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: body) {
                #expect($0.status == .badRequest)
                #expect("\($0.body.json.members["detail"] ?? .null)".contains("UTF-8"))
            }
        }
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        let shop = try ShopFixture()
        try await shop.application(.init(maxBodySize: 64)).test(.router) { client in
            let body = ByteBuffer(json: #"{"n": 1, "pad": "\#(String(repeating: "x", count: 100))"}"#)
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: body) {
                #expect($0.status == .contentTooLarge)
                #expect($0.body.json.members["limit"] == 64)
            }
        }
        #expect(shop.count == 0)
    }

    @Test func withATokenChangesNeedIt() async throws {
        let shop = try ShopFixture()
        try await shop.application(.init(token: "s3cret")).test(.router) { client in
            let body = ByteBuffer(json: #"{"n": 1}"#)
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: body) {
                #expect($0.status == .unauthorized)
                #expect($0.headers[.wwwAuthenticate] == "Bearer")
            }
            try await client.execute(uri: "/dispatch/shop.add", method: .post, headers: [.authorization: "Bearer s3cre"], body: body) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/plugins/shop/reload", method: .post) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/events", method: .get) {
                #expect($0.status == .unauthorized)
            }
            #expect(shop.count == 0)
            try await client.execute(uri: "/dispatch/shop.add", method: .post, headers: [.authorization: "Bearer s3cret"], body: body) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/state", method: .get) {
                #expect($0.status == .ok)
            }
        }
        #expect(shop.count == 1)
    }

    @Test func theEventStreamRefusesAnotherOrigin() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            let foreign: HTTPFields = [.origin: "http://evil.example", HTTPField.Name("Host")!: "127.0.0.1:8080"]
            try await client.execute(uri: "/events", method: .get, headers: foreign) {
                #expect($0.status == .forbidden)
                #expect($0.body.json.members["title"] == "cross-origin")
            }
            let otherPort: HTTPFields = [.origin: "http://127.0.0.1:9999", HTTPField.Name("Host")!: "127.0.0.1:8080"]
            try await client.execute(uri: "/events", method: .get, headers: otherPort) {
                #expect($0.status == .forbidden)
            }
            let own: HTTPFields = [.origin: "http://127.0.0.1:8080", HTTPField.Name("Host")!: "127.0.0.1:8080"]
            try await client.execute(uri: "/events", method: .get, headers: own) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func pluginsListsVersionsAndItems() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/plugins", method: .get) {
                let plugins = $0.body.json.members["plugins"]
                #expect(plugins == [["name": "shop", "version": 1, "updaters": ["shop.add"], "sideEffects": ["shop.count", "shop.fail"]]])
            }
        }
    }

    @Test func aBrokenReloadIsAProblemNamingItsPlaceAndTheOldVersionRuns() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            _ = try shop.plugins.write("shop", "return {\n  name = 'shop',\n  updaters = { add = function( end },\n}")
            try await client.execute(uri: "/plugins/shop/reload", method: .post) {
                #expect($0.status == .unprocessableContent)
                #expect($0.body.json.members["location"] == "shop/plugin.lua:3")
            }
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: ByteBuffer(json: #"{"n": 1}"#)) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/plugins/nope/reload", method: .post) {
                #expect($0.status == .notFound)
            }
        }
        #expect(shop.count == 1)
    }

    @Test func aBadPointerIsABadRequestAndAMissingPlaceNotFound() async throws {
        let shop = try ShopFixture()
        try await shop.application().test(.router) { client in
            try await client.execute(uri: "/state?pointer=count", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/state?pointer=/missing", method: .get) {
                #expect($0.status == .notFound)
                #expect($0.body.json.members["detail"]?.text?.contains("\"missing\"") == true)
            }
        }
    }
}

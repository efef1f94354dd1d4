import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Logging
import MoonbladeHost
import MoonbladeHummingbird
import NIOCore
import Synchronization
import Testing

/// The live event stream on a real server (an ephemeral loopback port) through a real WebSocket client.
@Suite struct EventStreamTests {
    @Test func aClientSeesDispatchesWithTheirDiffAndReloadsWithTheirPlace() async throws {
        let shop = try ShopFixture()
        let received = Mutex<[JSONValue]>([])
        try await shop.application(.init(token: "t")).test(.live) { client in
            let configuration = WebSocketClientConfiguration(additionalHeaders: [.authorization: "Bearer t"])
            try await client.ws("/events", configuration: configuration) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                // The server says hello once subscribed: dispatch and reload from then on.
                guard case .text(let hello) = try await messages.next() else { return }
                #expect(try JSONValue(json: hello).members["type"] == "hello")
                let driving = Task {
                    try await shop.host.dispatch("shop.add", ["n": 2]).value
                    _ = try? await shop.host.dispatch("shop.add", ["n": "x"]).value
                    _ = try shop.plugins.write("shop", "return {\n  name = 'shop', version = 2,\n  updaters = { add = }\n}")
                    _ = try? await shop.host.reload(plugin: "shop")
                }
                while let message = try await messages.next() {
                    guard case .text(let text) = message else { continue }
                    let count = received.withLock {
                        $0.append((try? JSONValue(json: text)) ?? .null)
                        return $0.count
                    }
                    if count == 3 { break }
                }
                try await driving.value
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        let events = received.withLock { $0 }
        try #require(events.count == 3)
        let applied = events[0].members
        #expect(applied["type"] == "dispatch")
        #expect(applied["item"] == "shop.add")
        #expect(applied["outcome"] == "applied")
        #expect(applied["payload"] == ["n": 2])
        #expect(applied["plugin"] == ["name": "shop", "version": 1])
        #expect(applied["origin"] == "direct")
        #expect(applied["diff"] == [[["count"], 2]])
        let failed = events[1].members
        #expect(failed["outcome"] == "failed")
        #expect(failed["error"]?.members["location"] == "shop/plugin.lua:5")
        let reload = events[2].members
        #expect(reload["type"] == "reload")
        #expect(reload["outcome"] == "failed")
        #expect(reload["error"]?.members["location"] == "shop/plugin.lua:3")
    }

    @Test func withoutTheTokenTheStreamDoesNotOpen() async throws {
        let shop = try ShopFixture()
        try await shop.application(.init(token: "t")).test(.live) { client in
            await #expect(throws: (any Error).self) {
                try await client.ws("/events") { _, _, _ in }
            }
        }
    }
}

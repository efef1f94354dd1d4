import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MoonbladeHost
import MoonbladeHummingbird
import MoonbladeTestSupport
import NIOCore
import Testing

/// Garbage at the routes: every answer a 4xx problem, the state untouched, the server still serving.
@Suite struct HostileRequestTests {
    @Test func randomBytesDeepJSONAndHugeBodiesAreRefusedAndChangeNothing() async throws {
        let shop = try ShopFixture()
        var random = SplitMix(seed: 0x5EED)
        var bodies: [[UInt8]] = (0..<200).map { _ in
            (0..<Int.random(in: 1...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        bodies.append(Array(String(repeating: "[", count: 100_000).utf8))
        bodies.append(Array(("{\"n\":" + String(repeating: "[", count: 300) + "1" + String(repeating: "]", count: 300) + "}").utf8))
        bodies.append(Array(String(repeating: "{\"a\":", count: 50_000).utf8))
        bodies.append([UInt8](repeating: 0x20, count: 10) + [0xC0, 0x80])
        bodies.append(Array(#"{"n": "\ud800"}"#.utf8))
        bodies.append([UInt8](repeating: UInt8(ascii: "1"), count: 3 << 20))
        let garbage = bodies
        try await shop.application().test(.router) { client in
            for body in garbage {
                for item in ["shop.add", "shop.count", "sh\u{0}op", "%FF%FE", String(repeating: "x", count: 5000)] {
                    let uri = "/dispatch/" + (item.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? item)
                    try await client.execute(uri: uri, method: .post, body: ByteBuffer(bytes: body)) { response in
                        #expect((400..<500).contains(response.status.code) || response.status == .ok, "\(item): \(response.status)")
                        if response.status != .ok {
                            #expect(response.headers[.contentType] == "application/problem+json")
                        }
                    }
                }
            }
            for pointer in ["/", "~", "/~2", "//", "/count/0", String(repeating: "/a", count: 10_000)] {
                let query = pointer.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                try await client.execute(uri: "/state?pointer=" + query, method: .get) {
                    #expect((400..<500).contains($0.status.code))
                }
            }
            try await client.execute(uri: "/dispatch/shop.add", method: .post, body: ByteBuffer(string: #"{"n": 1}"#)) {
                #expect($0.status == .noContent)
            }
        }
        #expect(shop.count == 1)
    }
}

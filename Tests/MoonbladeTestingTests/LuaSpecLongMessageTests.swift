import MoonbladeTesting
import Testing

/// A spec's failure message of megabytes is cut as the host cuts a plugin's error messages (the first
/// 3 KiB, the last 1 KiB and the size): it was reported whole, 30 MB of `moonblade test` output for
/// three such cases.
@Suite struct LuaSpecLongMessageTests {
    @Test(arguments: [
        (body: "error(('y'):rep(1e6))", size: "1000000"),
        (body: "assert.are.same(('a'):rep(1e6), ('b'):rep(1e6))", size: ""),
    ])
    func aFailureOfMegabytesIsCut(body: String, size: String) async throws {
        let sandbox = try SpecSandbox(spec: "it(\"long\", function()\n  \(body)\nend)\n")
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 2)
        #expect(failure.message.utf8.count < 5000, "\(failure.message.utf8.count) bytes")
        #expect(failure.message.contains("(a message of \(size)"), "\(failure.message.prefix(200))")
    }

    @Test func aShortFailureIsWhole() async throws {
        let sandbox = try SpecSandbox(spec: "it(\"short\", function()\n  error(('z'):rep(4000))\nend)\n")
        let failure = try #require(try await sandbox.failure())
        #expect(failure.message == String(repeating: "z", count: 4000))
    }
}

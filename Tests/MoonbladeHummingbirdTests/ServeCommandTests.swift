import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonbladeHost
import MoonbladeTestSupport
import NIOCore
import Testing

/// `moonblade serve` end to end: the real binaries (`moonblade`, which runs `moonblade-serve`), a real
/// HTTP client on the port the server picked, a SIGTERM, the state saved.
@Suite struct ServeCommandTests {
    /// `moonblade` next to the test bundle (the test target depends on both executables).
    static let moonblade = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("moonblade")

    @Test func aServerDispatchesAndSavesItsStateOnSIGTERM() async throws {
        let scratch = ScratchDirectory()
        let save = scratch.url.appendingPathComponent("state.json")
        let log = scratch.url.appendingPathComponent("stderr")
        try Data().write(to: log)
        let process = Process()
        process.executableURL = Self.moonblade
        process.arguments = [
            "serve", shippedPlugin("counter"), "--port", "0", "--token", "t", "--save", save.path,
            "--data-dir", scratch.url.appendingPathComponent("data").path,
        ]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // A guard against a server that never starts, not a measurement.
        var port: Int?
        _ = await eventually(timeout: .seconds(60)) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            port = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) }
            return port != nil || !process.isRunning
        }
        let serverPort = try #require(port, "no listening line: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")

        try await TestClient.withClient(host: "127.0.0.1", port: serverPort) { client in
            let headers: HTTPFields = [.authorization: "Bearer t", .contentType: "application/json"]
            let refused = try await client.post("/dispatch/counter.increment", body: ByteBuffer(string: #"{"by": 5}"#))
            #expect(refused.status == .unauthorized)
            for _ in 0..<3 {
                let response = try await client.post("/dispatch/counter.increment", headers: headers, body: ByteBuffer(string: #"{"by": 2}"#))
                #expect(response.status == .noContent)
            }
            let state = try await client.get("/state")
            #expect(try JSONValue(json: state.body.map { Array($0.readableBytesView) } ?? []) == ["counter": 6])
        }

        kill(process.processIdentifier, SIGTERM)
        _ = await eventually(timeout: .seconds(60)) { !process.isRunning }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try JSONValue(json: Array(Data(contentsOf: save))) == ["counter": 6])
    }

    @Test func itRefusesAnAddressBeyondLoopbackWithoutAToken() throws {
        let process = Process()
        process.executableURL = Self.moonblade
        process.arguments = ["serve", shippedPlugin("counter"), "--host", "0.0.0.0", "--port", "0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(text.contains("--token"))
    }
}

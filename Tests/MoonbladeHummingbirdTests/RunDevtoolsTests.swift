import Foundation
import HTTPTypes
import HummingbirdTesting
import MoonbladeHost
import MoonbladeTestSupport
import NIOCore
import Testing

/// `moonblade run --watch --devtools`: the run handed over to `moonblade-serve`, reading dispatches
/// from standard input as `run --watch` does, with the devtools page served meanwhile.
@Suite struct RunDevtoolsTests {
    @Test func aWatchedRunServesTheDevtoolsAndStopsAtTheEndOfItsInput() async throws {
        let scratch = ScratchDirectory()
        let log = scratch.url.appendingPathComponent("stderr")
        let output = scratch.url.appendingPathComponent("stdout")
        try Data().write(to: log)
        try Data().write(to: output)
        let input = Pipe()
        let process = Process()
        process.executableURL = ServeCommandTests.moonblade
        process.arguments = [
            "run", shippedPlugin("counter"), "--watch", "--devtools",
            "--data-dir", scratch.url.appendingPathComponent("data").path,
        ]
        process.standardInput = input
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        input.fileHandleForWriting.write(Data("counter.increment {\"by\": 2}\nnot an item\n".utf8))

        // A guard against a server that never starts, not a measurement.
        var address: (port: Int, token: String)?
        _ = await eventually(timeout: .seconds(60)) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            address = text.firstMatch(of: /devtools at http:\/\/127\.0\.0\.1:(\d+)\/devtools#token=([0-9a-f]+)/)
                .flatMap { match in Int(match.1).map { ($0, String(match.2)) } }
            return address != nil || !process.isRunning
        }
        let (port, token) = try #require(address, "no devtools line: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")

        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            let page = try await client.get("/devtools")
            #expect(page.status == .ok)
            // The line from standard input, and one over HTTP with the token the address carried.
            // Polled for 30 s at most: a guard against a line never dispatched, not a measurement.
            var state: JSONValue?
            for _ in 0..<300 where state != ["counter": 2] {
                state = JSONValue(json: try await client.get("/state").body ?? ByteBuffer())
                if state != ["counter": 2] { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(state == ["counter": 2])
            let headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            let response = try await client.post("/dispatch/counter.increment", headers: headers, body: ByteBuffer(string: "{}"))
            #expect(response.status == .noContent)
        }

        // The end of input ends the run, which prints the state.
        input.fileHandleForWriting.write(Data("counter.increment\n".utf8))
        try input.fileHandleForWriting.close()
        _ = await eventually(timeout: .seconds(60)) { !process.isRunning }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try JSONValue(json: Array(Data(contentsOf: output))) == ["counter": 4])
        let errors = try String(contentsOf: log, encoding: .utf8)
        #expect(errors.contains(#"error: expected an item name (plugin.item), found "not""#), "\(errors)")
    }

    @Test(arguments: [
        (["--devtools"], "--devtools needs --watch"),
        (["--watch", "--devtools", "9000", "--trace"], "--trace does not go with --devtools"),
        (["--watch", "--devtools", "--dispatch", "counter.increment"], "--dispatch does not go with --devtools"),
    ])
    func whatARunServedWithDevtoolsDoesNotDoIsRefused(words: [String], message: String) throws {
        let process = Process()
        process.executableURL = ServeCommandTests.moonblade
        process.arguments = ["run", shippedPlugin("counter")] + words
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64)
        #expect(text.contains(message), "\(text)")
    }
}

extension JSONValue {
    /// The JSON in `body`; nil when it is none.
    fileprivate init?(json body: ByteBuffer) {
        guard let value = try? JSONValue(json: Array(body.readableBytesView)) else { return nil }
        self = value
    }
}

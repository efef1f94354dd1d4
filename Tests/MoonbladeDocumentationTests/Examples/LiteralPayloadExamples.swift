import MoonbladeHost
import Testing

/// A payload written as a dictionary literal mixing value types reads as a `JSONValue`.
@Test func aMixedLiteralPayloadReachesTheUpdater() async throws {
    let host = try PluginHost<JSONValue>(plugins: [])
    await #expect(throws: PluginError.self) { try await host.dispatch("notes.insert", ["id": 7, "text": "tea"]).value }
}

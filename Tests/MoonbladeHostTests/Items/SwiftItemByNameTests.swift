import Moonblade
import MoonbladeHost
import Testing

/// A Swift side effect that returns twice its `n`, for dispatches by name that await a value.
struct Doubling: ReturningSideEffect, Codable {
    var n: Int
    func sideEffect(_ context: any AnySideEffectContext) async throws -> Int { n * 2 }
}

/// A Swift item registered with `register(_:as:)` is dispatched by name from Swift as from Lua: its
/// payload decoded into its type on the way, a payload that does not decode refused at once.
@Suite("Dispatching a registered Swift item by name from Swift")
struct SwiftItemByNameTests {
    let scratch = ScratchPlugins()

    func host() throws -> PluginHost<AppState> {
        let plugin = try scratch.write("app", #"return { name = "app", updaters = { bump = function(s) s.counter = s.counter + 1 end } }"#)
        let host = try PluginHost<AppState>(plugins: [plugin])
        try host.register(SetCounter.self, as: "app.set")
        try host.register(Doubling.self, as: "math.double")
        return host
    }

    @Test func anUpdaterRegisteredUnderANameIsDispatchedByItWithItsPayload() async throws {
        let host = try host()
        try await host.dispatch("app.set", ["value": 41]).value
        try await host.dispatch("app.bump").value
        #expect(host.state.counter == 42)
    }

    @Test func aReturningSideEffectRegisteredUnderANameGivesItsValue() async throws {
        let host = try host()
        #expect(try await host.dispatch("math.double", ["n": 21], returning: Int.self).value == 42)
        // Awaited as nothing, it still runs and its value is dropped.
        try await host.dispatch("math.double", ["n": 1]).value
    }

    @Test func aPayloadThatDoesNotDecodeIsRefusedAtOnceNamingThePlace() async throws {
        let host = try host()
        let wrongType = try #require(throws: PluginError.self) { try host.dispatch("app.set", ["value": "seven"]) }
        #expect(wrongType.kind == .invalidValue)
        #expect(wrongType.item == "app.set")
        #expect(wrongType.description == #"app.set: payload.value: expected Int, found string "seven""#)
        let missing = try #require(throws: PluginError.self) { try host.dispatch("app.set") }
        #expect(missing.kind == .invalidValue)
        #expect(missing.message.contains("payload"), "\(missing)")
        #expect(host.state.counter == 0)
        // The host dispatches on.
        try await host.dispatch("app.set", ["value": 3]).value
        #expect(host.state.counter == 3)
    }

    @Test func anUpdaterAskedForAValueIsTheWrongKindAndAValueOfAnotherTypeFailsOnTheHandle() async throws {
        let host = try host()
        let updater = try #require(throws: PluginError.self) { try host.dispatch("app.set", ["value": 1], returning: Int.self) }
        #expect(updater.kind == .wrongKind)
        #expect(host.state.counter == 0)
        await #expect(throws: StoreError.self) { try await host.dispatch("math.double", ["n": 2], returning: String.self).value }
    }
}

import Moonblade
import MoonbladeHost
import Testing

/// A dispatch by name resolves its item once, when it is dispatched; these check that what it resolved
/// never outlives a reload: an item dispatched before a reload and run after it runs the new code.
@Suite("Dispatch by name across a reload")
struct DispatchByNameTests {
    let scratch = ScratchPlugins()

    /// Holds back the first item dispatched (dropping it from the chain) and lets every later one through
    /// (a reload's swap among them), to send the first to the store again later: it was resolved before
    /// whatever happened in between.
    final class Holder: Sendable {
        let held = Locked<(any Dispatchable)?>(nil)
        let isHolding = Locked(true)

        var interceptor: StoreInterceptor {
            { _ in
                { next in
                    { item in
                        let holds = self.isHolding.withLock { holding in
                            defer { holding = false }
                            return holding
                        }
                        guard holds else { return try next(item) }
                        self.held.withLock { $0 = item }
                    }
                }
            }
        }

        /// Sends the held item to `host`'s store and waits for it.
        func release<S>(to host: PluginHost<S>) async throws {
            let item = try #require(held.withLock { $0 })
            _ = try await host.store.anyDispatch(item).value
        }
    }

    /// A host on the plugin `p`, whose `add` adds 1, and the holder of a dispatch of `p.add` made on it.
    func hostHoldingAdd() throws -> (PluginHost<AppState>, Holder) {
        let holder = Holder()
        let folder = try scratch.write("p", #"return { name = "p", updaters = { add = function(s) s.counter = s.counter + 1 end } }"#)
        let host = try PluginHost<AppState>(plugins: [folder], interceptors: [holder.interceptor])
        try host.dispatch("p.add")
        return (host, holder)
    }

    @Test("an updater dispatched before a reload and run after it runs the new code")
    func runsTheNewCode() async throws {
        let (host, holder) = try hostHoldingAdd()
        // The new version has more updaters, so the old one's place among them tells nothing.
        let others = (1...9).map { "u\($0) = function(s) s.counter = -\($0) end," }.joined()
        _ = try scratch.write("p", "return { name = \"p\", updaters = { \(others) add = function(s) s.counter = s.counter + 100 end } }")
        _ = try await host.reload(plugin: "p")
        try await holder.release(to: host)
        #expect(host.state.counter == 100)
    }

    @Test("a side effect dispatched before a reload and run after it runs the new code")
    func aSideEffectRunsTheNewCode() async throws {
        let holder = Holder()
        let folder = try scratch.write("p", #"return { name = "p", side_effects = { answer = function(ctx) return 1 end } }"#)
        let host = try PluginHost<AppState>(plugins: [folder], interceptors: [holder.interceptor])
        _ = try host.dispatch("p.answer", returning: Int.self)
        let others = (1...9).map { "s\($0) = function(ctx) return -\($0) end," }.joined()
        _ = try scratch.write("p", "return { name = \"p\", side_effects = { \(others) answer = function(ctx) return 100 end } }")
        _ = try await host.reload(plugin: "p")
        let item = try #require(holder.held.withLock { $0 })
        #expect(try await host.store.anyDispatch(item).value as? Int == 100)
    }

    @Test("a name dispatched before a reload is looked up again after it: a new kind, or none")
    func aNameIsLookedUpAgainAfterAReload() async throws {
        let folder = try scratch.write("p", #"return { name = "p", updaters = { add = function(s) s.counter = s.counter + 1 end } }"#)
        let host = try PluginHost<AppState>(plugins: [folder])
        try await host.dispatch("p.add").value
        _ = try scratch.write("p", #"return { name = "p", side_effects = { add = function(ctx) return 5 end } }"#)
        _ = try await host.reload(plugin: "p")
        #expect(try await host.dispatch("p.add", returning: Int.self).value == 5)
        _ = try scratch.write("p", #"return { name = "p", updaters = { other = function(s) end } }"#)
        _ = try await host.reload(plugin: "p")
        let error = #expect(throws: PluginError.self) { try host.dispatch("p.add") }
        #expect(error?.kind == .unknownItem)
        #expect(host.state.counter == 1)
    }

    @Test(
        "an updater a reload took away, or made a side effect, fails as unknown or of the wrong kind; the state stays",
        arguments: [
            (#"return { name = "p", updaters = { other = function(s) s.counter = -1 end } }"#, PluginError.Kind.unknownItem),
            (#"return { name = "p", side_effects = { add = function(ctx) end } }"#, .wrongKind),
        ])
    func goneOrOfAnotherKind(source: String, kind: PluginError.Kind) async throws {
        let (host, holder) = try hostHoldingAdd()
        _ = try scratch.write("p", source)
        _ = try await host.reload(plugin: "p")
        let error = try await #require(throws: PluginError.self) { try await holder.release(to: host) }
        #expect(error.kind == kind)
        #expect(error.plugin == "p")
        #expect(error.item == "p.add")
        #expect(host.state.counter == 0)
    }

    @Test("a Lua updater sent to a store of another state fails with a type mismatch, and neither state changes")
    func anotherStoresState() async throws {
        struct Other: State, Equatable { var counter = 7 }
        let (host, holder) = try hostHoldingAdd()
        let item = try #require(holder.held.withLock { $0 })
        let other = Store<Other, EmptySideEffectDependencyContainer>()
        let error = try await #require(throws: StoreError.self) { _ = try await other.anyDispatch(item).value }
        guard case .typeMismatch(let expected, let found) = error else {
            Issue.record("expected a type mismatch, got \(error)")
            return
        }
        #expect(expected.hasSuffix("AppState"))
        #expect(found.hasSuffix("Other"))
        #expect(other.state == Other())
        #expect(host.state.counter == 0)
    }

    @Test("an updater dispatched before a reload that failed runs the code that stayed")
    func failedReloadKeepsTheResolvedItem() async throws {
        let (host, holder) = try hostHoldingAdd()
        _ = try scratch.write("p", #"return { name = "p", updaters = { add = 42 } }"#)
        await #expect(throws: PluginError.self) { _ = try await host.reload(plugin: "p") }
        try await holder.release(to: host)
        #expect(host.state.counter == 1)
    }
}

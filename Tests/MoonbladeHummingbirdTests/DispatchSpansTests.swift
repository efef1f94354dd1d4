import MoonbladeHost
import MoonbladeTestSupport
import Synchronization
import Testing
import Tracing

@testable import MoonbladeHummingbird

/// Each dispatch on the event stream has an id, its parent's id when a rule or a side effect set it
/// off, and its span tree with durations; with no client, no span is made.
@Suite struct DispatchSpansTests {
    static let source = """
        return {
          name = "shop",
          updaters = {
            add = function(state, p) state.items = (state.items or 0) + p.n end,
            note = function(state, p) state.notes = (state.notes or 0) + 1 end,
          },
          side_effects = {
            restock = function(ctx)
              ctx.dispatch("shop.add", { n = 3 })
            end,
          },
          observers = {
            { on_dispatch = "shop.add", dispatch = { { "shop.note", function(item) return { n = item.payload.n } end } } },
          },
        }
        """

    let plugins = ScratchPlugins()
    let events = HostEvents()
    let host: PluginHost<JSONValue>

    init() throws {
        let directory = try plugins.write("shop", Self.source)
        host = try PluginHost<JSONValue>(
            plugins: [directory], initialState: [:], interceptors: [events.interceptor()],
            configuration: .init(tracer: events.tracer()))
    }

    /// The messages of `queue` until `count` dispatches have come with their span trees.
    private func messages(_ queue: EventQueue, dispatches count: Int) async -> [Int: [String: JSONValue]] {
        var dispatches: [Int: [String: JSONValue]] = [:]
        while dispatches.count < count || dispatches.values.contains(where: { $0["spans"] == nil }) {
            guard case .event(let event)? = await queue.next() else { break }
            let members = event.json().members
            guard case .integer(let id)? = members["id"] else { continue }
            if members["type"] == "spans" {
                dispatches[Int(id), default: [:]]["spans"] = members["spans"]
            } else {
                dispatches[Int(id), default: [:]].merge(members) { _, new in new }
            }
        }
        return dispatches
    }

    /// The names in `tree`, indented by depth, one per line.
    private func outline(_ tree: JSONValue?, depth: Int = 0) -> [String] {
        guard let members = tree?.members, let name = members["name"]?.text else { return [] }
        let children = if case .array(let children)? = members["children"] { children } else { [JSONValue]() }
        return [String(repeating: "  ", count: depth) + name] + children.flatMap { outline($0, depth: depth + 1) }
    }

    @Test func aSideEffectsDispatchesCarryItsIdAndEachItsSpanTree() async throws {
        let (id, queue) = events.subscribe(limit: 100)
        defer { events.unsubscribe(id) }
        _ = try await host.dispatch("shop.restock").value
        await host.settle()
        let dispatches = await messages(queue, dispatches: 3)
        let byItem = Dictionary(uniqueKeysWithValues: dispatches.values.compactMap { members in members["item"]?.text.map { ($0, members) } })
        let restock = try #require(byItem["shop.restock"])
        let add = try #require(byItem["shop.add"])
        let note = try #require(byItem["shop.note"])
        #expect(restock["parent"] == .null)
        #expect(restock["origin"] == "direct")
        #expect(add["parent"] == restock["id"])
        #expect(add["origin"] == "side_effect")
        #expect(note["parent"] == add["id"])
        #expect(note["origin"] == "rule")
        #expect(
            outline(restock["spans"]) == [
                "dispatch shop.restock", "  lua", "  await ctx.dispatch shop.add",
                "    dispatch shop.add", "      state to lua", "      lua", "      state from lua",
                "      rule shop.observers[1] shop.note", "        dispatch shop.note", "          state to lua",
                "          lua", "          state from lua", "  lua",
            ])
        #expect(outline(add["spans"]).first == "dispatch shop.add")
        #expect(add["spans"]?.members["dispatch"] == add["id"])
        // Every span ended, and has its duration.
        func durations(_ tree: JSONValue?) -> [JSONValue?] {
            guard let members = tree?.members else { return [] }
            let children = if case .array(let children)? = members["children"] { children } else { [JSONValue]() }
            return [members["durationNanoseconds"]] + children.flatMap(durations)
        }
        #expect(durations(restock["spans"]).allSatisfy { if case .integer(let nanoseconds)? = $0 { nanoseconds >= 0 } else { false } })
    }

    @Test func aRulesDispatchHangsUnderADirectDispatch() async throws {
        let (id, queue) = events.subscribe(limit: 100)
        defer { events.unsubscribe(id) }
        try await host.dispatch("shop.add", ["n": 1]).value
        await host.settle()
        let dispatches = await messages(queue, dispatches: 2)
        let add = try #require(dispatches.values.first { $0["item"] == "shop.add" })
        let note = try #require(dispatches.values.first { $0["item"] == "shop.note" })
        #expect(add["parent"] == .null)
        #expect(note["parent"] == add["id"])
        #expect(note["origin"] == "rule")
        #expect(outline(add["spans"]).prefix(4) == ["dispatch shop.add", "  state to lua", "  lua", "  state from lua"])
    }

    /// A route's dispatch and a command line's say so, and what they set off hangs under them; Swift
    /// code's stays `direct`.
    @Test func aRoutesAndACommandLinesDispatchesSayWhereTheyCameFrom() async throws {
        let (id, queue) = events.subscribe(limit: 100)
        defer { events.unsubscribe(id) }
        try await HostEvents.dispatchingOverHTTP { try host.dispatch("shop.add", ["n": 1]) }.value
        await host.settle()
        _ = try await HostEvents.dispatchingFromCommandLine { try await host.dispatchAndSettle("shop.restock", [:]) }
        try await host.dispatch("shop.add", ["n": 2]).value
        await host.settle()
        let dispatches = await messages(queue, dispatches: 7).sorted { $0.key < $1.key }.map(\.value)
        let shown = dispatches.map { "\($0["item"]?.text ?? "?") \($0["origin"]?.text ?? "?")" }
        #expect(
            shown == [
                "shop.add http", "shop.note rule", "shop.restock command_line", "shop.add side_effect", "shop.note rule",
                "shop.add direct", "shop.note rule",
            ])
        #expect(dispatches[1]["parent"] == dispatches[0]["id"])
        #expect(dispatches[3]["parent"] == dispatches[2]["id"])
    }

    @Test func aFailedDispatchHasItsErrorOnItsSpan() async throws {
        let (id, queue) = events.subscribe(limit: 100)
        defer { events.unsubscribe(id) }
        _ = try? await host.dispatch("shop.add", ["n": "x"]).value
        let dispatches = await messages(queue, dispatches: 1)
        let add = try #require(dispatches.values.first)
        #expect(add["outcome"] == "failed")
        #expect(add["spans"]?.members["error"]?.text?.contains("shop/plugin.lua:4: attempt to add") == true, "\(add)")
    }

    @Test func withNoClientTheTracerWantsNoSpans() async throws {
        let tracer = try #require(events.tracer() as? EventTracer)
        #expect(!tracer.demand.isOn)
        let (id, _) = events.subscribe(limit: 1)
        #expect(tracer.demand.isOn)
        events.unsubscribe(id)
        #expect(!tracer.demand.isOn)
    }

    @Test func aReaderInThisProcessGetsTheMessagesUntilItStops() async throws {
        let tracer = try #require(events.tracer() as? EventTracer)
        let messages = events.messages()
        #expect(tracer.demand.isOn)
        try await host.dispatch("shop.add", ["n": 1]).value
        let reading = Task {
            var texts: [String] = []
            for await text in messages {
                texts.append(text)
                if texts.count == 1 { return texts }
            }
            return texts
        }
        let first = try JSONValue(json: Array((await reading.value.first ?? "").utf8))
        #expect(first.members["item"] == "shop.add")
        #expect(first.members["spans"]?.members["name"] == "dispatch shop.add")
        // Its reader gone, the stream lets go: no client, no spans.
        let waiting = Task { for await _ in messages {} }
        waiting.cancel()
        await waiting.value
        #expect(await eventually(timeout: .seconds(10)) { !tracer.demand.isOn })
    }

    @Test func aHostMakesSpansOnlyWhileTheDemandIsOn() async throws {
        let tracer = CountingTracer()
        let counted = try PluginHost<JSONValue>(
            plugins: [try plugins.write("counted", Self.source.replacing("\"shop", with: "\"counted"))], initialState: [:],
            configuration: .init(tracer: tracer))
        try await counted.dispatch("counted.add", ["n": 1]).value
        await counted.settle()
        #expect(tracer.started.load(ordering: .relaxed) == 0)
        tracer.demand.begin()
        try await counted.dispatch("counted.add", ["n": 1]).value
        await counted.settle()
        tracer.demand.end()
        #expect(tracer.started.load(ordering: .relaxed) > 0)
    }
}

/// Counts the spans a host starts, and makes none of its own.
private final class CountingTracer: DemandDrivenTracer, InProcessTracer, Sendable {
    let demand = TracingDemand()
    let started = Atomic<Int>(0)

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> NoOpTracer.NoOpSpan {
        started.add(1, ordering: .relaxed)
        return NoOpTracer.NoOpSpan(context: context())
    }
}

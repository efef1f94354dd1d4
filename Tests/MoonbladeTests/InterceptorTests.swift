import Moonblade
import MoonbladeTestSupport
import Testing

/// An interceptor that logs around `next` under a name.
func tracing(_ name: String, into trace: Recorder<String>) -> StoreInterceptor {
    { _ in
        { next in
            { dispatchable in
                trace.append("\(name) before")
                try next(dispatchable)
                trace.append("\(name) after")
            }
        }
    }
}

/// An interceptor that hands every item to `transform` instead of `next`.
func intercepting(
    _ transform: @escaping (any Dispatchable, StoreInterceptorNext) throws -> Void
) -> StoreInterceptor {
    { _ in { next in { dispatchable in try transform(dispatchable, next) } } }
}

@Suite("Interceptors", .hangGuard)
struct InterceptorTests {
    @Test("interceptors compose in array order and unwind in reverse")
    func order() {
        let trace = Recorder<String>()
        let store = TestStore(interceptors: [tracing("outer", into: trace), tracing("inner", into: trace)])
        _ = store.addListener { _, _ in trace.append("listener") }
        store.dispatch(Increment())
        #expect(trace.values == ["outer before", "inner before", "listener", "inner after", "outer after"])
    }

    @Test("an interceptor sees the state before and after next")
    func beforeAndAfter() {
        let seen = Recorder<Int>()
        let store = TestStore(interceptors: [
            { context in
                { next in
                    { dispatchable in
                        seen.append((context.getAnyState() as! TestState).count)
                        try next(dispatchable)
                        seen.append((context.getAnyState() as! TestState).count)
                    }
                }
            }
        ])
        store.dispatch(Increment(by: 3))
        #expect(seen.values == [0, 3])
    }

    @Test("an item replaced by one of the same kind runs in place; its result goes to the original handle")
    func replaceSameKind() async throws {
        let trace = Recorder<String>()
        let store = TestStore(interceptors: [
            tracing("outer", into: trace),
            intercepting { dispatchable, next in
                switch dispatchable {
                case is Increment: try next(Increment(by: 10))
                case is Square: try next(Square(value: 5))
                // Same kind, another type.
                case is Append: try next(Increment(by: 100))
                case is SquarePlusOne: try next(Square(value: 7))
                default: try next(dispatchable)
                }
            },
        ])
        try await store.dispatch(Increment()).value
        #expect(store.state.count == 10)
        #expect(try await store.dispatch(Square(value: 2)).value == 25)
        try await store.dispatch(Append("replaced")).value
        #expect(store.state == TestState(count: 110, log: []))
        #expect(try await store.dispatch(SquarePlusOne(value: 1)).value == 49)
        #expect(trace.values.filter { $0 == "outer before" }.count == 4)
    }

    @Test("an item replaced by one of another kind is re-dispatched through the whole chain, unseen further in before")
    func replaceOtherKind() async throws {
        let trace = Recorder<String>()
        let store = TestStore(interceptors: [
            intercepting { dispatchable, next in
                trace.append(String(describing: type(of: dispatchable)))
                try next(dispatchable is Append ? ReadDispatchRead() : dispatchable)
            },
            // Further in: sees each item once, as it runs, never one the store only queues.
            intercepting { dispatchable, next in
                trace.append("inner " + String(describing: type(of: dispatchable)))
                try next(dispatchable)
            },
        ])
        // The Void handle of the updater follows the replacement side effect to its end.
        try await store.dispatch(Append("replaced")).value
        #expect(trace.values == ["Append", "ReadDispatchRead", "inner ReadDispatchRead", "Increment", "inner Increment"])
        #expect(store.state == TestState(count: 1, log: []))
    }

    @Test("a dropped updater resolves with no change and no listener call")
    func drop() async throws {
        let store = TestStore(interceptors: [
            intercepting { dispatchable, next in
                if !(dispatchable is Increment) { try next(dispatchable) }
            }
        ])
        let calls = Recorder<Int>()
        _ = store.addListener { _, new in calls.append(new.count) }
        try await store.dispatch(Increment()).value
        try await store.dispatch(Append("kept")).value
        #expect(store.state == TestState(count: 0, log: ["kept"]))
        #expect(calls.values == [0])
        // A dropped returning side effect has no value to give: nil where the value can be nil, else an error.
        struct MaybeSquare: ReturningSideEffect {
            func sideEffect(_ context: any AnySideEffectContext) async throws -> Int? { 4 }
        }
        let dropAll = TestStore(interceptors: [intercepting { _, _ in }])
        #expect(try await dropAll.dispatch(MaybeSquare()).value == nil)
        let error = try await #require(throws: StoreError.self) { try await dropAll.dispatch(Square(value: 2)).value }
        #expect(error.description.hasPrefix("type mismatch: expected Swift.Int, found no value (an interceptor dropped"))
    }

    @Test("an item an interceptor replaces with one that is neither updater nor side effect fails with unsupportedDispatchable")
    func replacedByUnsupported() async {
        let store = TestStore(interceptors: [intercepting { _, next in try next(PlainDispatchable()) }])
        let calls = Recorder<Int>()
        _ = store.addListener { _, new in calls.append(new.count) }
        await #expect(throws: StoreError.unsupportedDispatchable(String(reflecting: PlainDispatchable.self))) {
            try await store.dispatch(Increment()).value
        }
        #expect(store.state == TestState())
        #expect(calls.values.isEmpty)
    }

    @Test("an interceptor that throws before next stops the item; the error reaches .value")
    func throwBeforeNext() async {
        let inner = Recorder<String>()
        let store = TestStore(interceptors: [
            intercepting { _, _ in throw TestError(message: "blocked") },
            tracing("inner", into: inner),
        ])
        await #expect(throws: TestError(message: "blocked")) { try await store.dispatch(Increment()).value }
        await #expect(throws: TestError(message: "blocked")) {
            try await store.dispatch(Square(value: 3)).value
        }
        #expect(store.state.count == 0)
        #expect(inner.values.isEmpty)
    }

    @Test("an interceptor that throws after next: the item ran and the error still reaches .value")
    func throwAfterNext() async {
        let store = TestStore(interceptors: [
            intercepting { dispatchable, next in
                try next(dispatchable)
                throw TestError(message: "after")
            }
        ])
        await #expect(throws: TestError(message: "after")) { try await store.dispatch(Increment()).value }
        #expect(store.state.count == 1)
    }

    @Test("dispatching from an interceptor queues the item after the current one")
    func dispatchFromInterceptor() async throws {
        let store = TestStore(interceptors: [
            { context in
                { next in
                    { dispatchable in
                        if dispatchable is Increment { context.dispatch(Append("from interceptor")) }
                        try next(dispatchable)
                    }
                }
            }
        ])
        let order = Recorder<String>()
        _ = store.addListener { _, new in order.append("\(new.count) \(new.log)") }
        try await store.dispatch(Increment()).value
        #expect(order.values == ["1 []", "1 [\"from interceptor\"]"])
    }
}

@Suite("Cascade depth", .hangGuard)
struct CascadeDepthTests {
    /// Records each item's type and the depth the store processes it at.
    func recordingDepths(into depths: Recorder<String>) -> StoreInterceptor {
        { context in
            { next in
                { item in
                    depths.append("\(type(of: item)) \(context.cascadeDepth)")
                    try next(item)
                }
            }
        }
    }

    @Test("an item dispatched with a depth carries it, and a side effect's dispatches go one deeper")
    func depthTravelsThroughTheQueueAndSideEffects() async throws {
        let depths = Recorder<String>()
        let store = TestStore(interceptors: [recordingDepths(into: depths)])
        _ = try await store.anyDispatch(Increment(), cascadeDepth: 5).value
        _ = try await store.anyDispatch(AppendLater(entry: "x"), cascadeDepth: 2).value
        try await store.dispatch(Increment()).value
        #expect(depths.values == ["Increment 5", "AppendLater 2", "Append 3", "Increment 0"])
    }

    @Test("an item an interceptor replaces with one of the other kind is re-dispatched one deeper")
    func reDispatchIsOneDeeper() async throws {
        let depths = Recorder<String>()
        let store = TestStore(interceptors: [
            recordingDepths(into: depths),
            intercepting { item, next in
                try next(item is Increment ? AppendLater(entry: "y") : item)
            },
        ])
        try await store.dispatch(Increment()).value
        await store.waitUntilIdle()
        #expect(depths.values == ["Increment 0", "AppendLater 1", "Append 2"])
    }
}

import Moonblade
import MoonbladeTestSupport
import Testing

/// A side effect interceptor that logs around `next` under a name.
func tracingSideEffects(_ name: String, into trace: Recorder<String>) -> SideEffectInterceptor {
    { _ in
        { next in
            { sideEffect in
                trace.append("\(name) before")
                let value = try await next(sideEffect)
                trace.append("\(name) after")
                return value
            }
        }
    }
}

/// A side effect interceptor that hands every side effect to `transform` instead of `next`.
func interceptingSideEffects(
    _ transform: @escaping @Sendable (any AnySideEffect, SideEffectInterceptorNext) async throws -> any Sendable
) -> SideEffectInterceptor {
    { _ in { next in { sideEffect in try await transform(sideEffect, next) } } }
}

/// Appends "ran" and returns nothing: tells whether a side effect ran at all.
struct AppendRan: SideEffect {
    func sideEffect(_ context: SideEffectContext<TestState, TestDependencies>) async throws {
        try await context.dispatch(Append("ran")).value
    }
}

@Suite("Side effect interceptors", .hangGuard)
struct SideEffectInterceptorTests {
    @Test("an interceptor awaits an updater it dispatches, sees the state before and after, and the value comes back")
    func awaitsAnUpdater() async throws {
        let seen = Recorder<Int>()
        let store = TestStore(sideEffectInterceptors: [
            { context in
                { next in
                    { sideEffect in
                        seen.append((context.getAnyState() as! TestState).count)
                        try await context.dispatch(Increment(by: 5)).value
                        seen.append((context.getAnyState() as! TestState).count)
                        return try await next(sideEffect)
                    }
                }
            }
        ])
        #expect(try await store.dispatch(ReadDispatchRead()).value == [5, 6])
        #expect(seen.values == [0, 5])
    }

    @Test("synchronous interceptors run first; side effect interceptors follow in array order and unwind in reverse")
    func order() async throws {
        let trace = Recorder<String>()
        let store = TestStore(
            interceptors: [tracing("sync", into: trace)],
            sideEffectInterceptors: [tracingSideEffects("outer", into: trace), tracingSideEffects("inner", into: trace)])
        _ = store.addListener { _, _ in trace.append("listener") }
        try await store.dispatch(AppendRan()).value
        #expect(
            trace.values == [
                "sync before", "sync after",  // the side effect's task starts after the drain let it through
                "outer before", "inner before",
                "sync before", "listener", "sync after",  // the updater it dispatches: synchronous chain only
                "inner after", "outer after",
            ])
    }

    @Test("updaters never pass through side effect interceptors")
    func updatersBypass() async throws {
        let trace = Recorder<String>()
        let store = TestStore(sideEffectInterceptors: [tracingSideEffects("async", into: trace)])
        try await store.dispatch(Increment()).value
        #expect(store.state.count == 1)
        #expect(trace.values.isEmpty)
    }

    @Test("an interceptor may replace a side effect, whose value then comes back in its place")
    func replace() async throws {
        let store = TestStore(sideEffectInterceptors: [
            interceptingSideEffects { sideEffect, next in
                guard let square = sideEffect as? Square, square.value == 3 else { return try await next(sideEffect) }
                // Another type of side effect, whose nested Square(4) passes unchanged.
                return try await next(SquarePlusOne(value: 4))
            }
        ])
        #expect(try await store.dispatch(Square(value: 3)).value == 17)
        #expect(try await store.dispatch(Square(value: 2)).value == 4)
    }

    @Test("an interceptor that drops a side effect returns a value without running it")
    func drop() async throws {
        let store = TestStore(sideEffectInterceptors: [
            interceptingSideEffects { sideEffect, _ in sideEffect is Square ? 7 as any Sendable : () }
        ])
        try await store.dispatch(AppendRan()).value
        #expect(try await store.dispatch(Square(value: 3)).value == 7)
        #expect(store.state.log.isEmpty)
        await #expect(
            throws: StoreError.typeMismatch(
                expected: "Swift.Int", found: "no value (an interceptor dropped the side effect or replaced it with a state updater)")
        ) {
            try await store.dispatch(SquarePlusOne(value: 3)).value
        }
    }

    @Test("an interceptor that throws before next keeps the side effect from running; the error reaches the handle")
    func throwBeforeNext() async throws {
        let store = TestStore(sideEffectInterceptors: [
            interceptingSideEffects { _, _ in throw TestError(message: "refused") }
        ])
        await #expect(throws: TestError(message: "refused")) { try await store.dispatch(AppendRan()).value }
        #expect(store.state.log.isEmpty)
    }

    @Test("side effect interceptors run in their side effects' tasks, concurrently")
    func concurrent() async throws {
        let latch = Latch(count: 2)
        let store = TestStore(sideEffectInterceptors: [
            interceptingSideEffects { sideEffect, next in
                await latch.arrive()  // both chains must be running at once to get past this
                return try await next(sideEffect)
            }
        ])
        async let first: Void = store.dispatch(AppendRan()).value
        async let second: Void = store.dispatch(AppendRan()).value
        _ = try await (first, second)
        #expect(store.state.log == ["ran", "ran"])
    }
}

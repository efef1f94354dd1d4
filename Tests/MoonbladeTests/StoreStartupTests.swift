import Moonblade
import Testing

/// Dispatches from its initializer, while the store is still starting.
final class StartupDependencies: SideEffectDependencyContainer {
    let stateSeenDuringInit: any State
    let handle: DispatchHandle<any Sendable>

    init(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {
        stateSeenDuringInit = getState()
        handle = dispatch(Append("from dependencies"))
        _ = dispatch(Increment())
    }
}

struct StartupMarker: OnStartObserverDispatchable, StateUpdater {
    init() {}
    func updateState(_ state: inout TestState) { state.log.append("on start") }
}

@Suite("Store startup")
struct StoreStartupTests {
    @Test("a store built with no arguments holds S() and is ready")
    func defaults() {
        let store = Store<TestState, EmptySideEffectDependencyContainer>()
        #expect(store.isReady)
        #expect(store.state == TestState())
    }

    @Test("the state initializer sets the initial state")
    func stateInitializer() {
        let store = TestStore(stateInitializer: { TestState(count: 7) })
        #expect(store.state.count == 7)
    }

    @Test("items dispatched before ready are queued and run in order on top of the initial state")
    func preReadyQueue() async throws {
        let order = Recorder<String>()
        let store = Store<TestState, StartupDependencies>(
            interceptors: [ObserverInterceptor.observe([.onStart([StartupMarker.self])])],
            stateInitializer: {
                order.append("state initializer")
                return TestState(count: 10, log: ["initial"])
            },
            dependenciesInitializer: { dispatch, getState in
                order.append("dependencies")
                return StartupDependencies(dispatch: dispatch, getState: getState)
            }
        )
        #expect(order.values == ["dependencies", "state initializer"])
        // getState worked during the dependencies' init and returned the placeholder S().
        #expect(store.dependencies.stateSeenDuringInit as? TestState == TestState())
        // Nothing was lost: dependency items first, then `.onStart`, all after the initial state.
        #expect(store.state == TestState(count: 11, log: ["initial", "from dependencies", "on start"]))
        _ = try await store.dependencies.handle.value
    }
}

// swift-format-ignore-file
// Its snippets are the documents' code, formatted as the documents show it (a test checks they match).
import Foundation
import MoonbladeHost
import Testing

// The examples of the Moonblade catalog's "The Store".

/// The remote service the store example's dependencies hold.
struct CounterAPI: Sendable {
    var remote = 3
    func count() async throws -> Int { remote }
}

// snippet: store-example
import Moonblade

struct CounterState: State {
    var count = 0
}

struct Increment: StateUpdater {                       // the only way to change the state
    var by = 1
    func updateState(_ state: inout CounterState) { state.count += by }
}

final class CounterDependencies: SideEffectDependencyContainer {
    let api = CounterAPI()
    init(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {}
}

struct Sync: SideEffect, OnStartObserverDispatchable {  // talks to the outside world, dispatches more
    func sideEffect(_ context: SideEffectContext<CounterState, CounterDependencies>) async throws {
        let remote = try await context.dependencies.api.count()
        try await context.dispatch(Increment(by: remote - context.getState().count)).value
    }
}

func runTheStore() async throws {
    let store = Store<CounterState, CounterDependencies>(interceptors: [
        DispatchableLogger.interceptor(blackList: [Increment.self]),
        ObserverInterceptor.observe([.onStart([Sync.self])]),
    ])
    let unsubscribe = store.addListener { old, new in print(old.count, "→", new.count) }
    store.dispatch(Increment())                         // fire and forget
    try await store.dispatch(Sync()).value              // or wait, and get its error
    unsubscribe()
}
// end snippet

@discardableResult
func storeWithAnAwaitingInterceptor() -> Store<CounterState, CounterDependencies> {
    // snippet: store-side-effect-interceptor
    let refreshFirst: SideEffectInterceptor = { context in
        { next in
            { sideEffect in
                try await context.dispatch(Increment()).value   // applied before the side effect runs
                return try await next(sideEffect)               // the side effect's value comes back
            }
        }
    }
    let store = Store<CounterState, CounterDependencies>(sideEffectInterceptors: [refreshFirst])
    // end snippet
    return store
}

// snippet: store-retry
func syncWithRetries(_ store: Store<CounterState, CounterDependencies>) async throws {
    let handle = store.dispatch(Sync(), retries: 2, delay: .milliseconds(100))
    try await handle.value                                  // the first success, or the last error
}
// end snippet

@discardableResult
func storeWithListenersOnMain() -> Store<CounterState, CounterDependencies> {
    // snippet: store-listeners-on-main
    let configuration = StoreConfiguration(listenersAsyncProvider: { work in DispatchQueue.main.async(execute: work) })
    let mainStore = Store<CounterState, CounterDependencies>(configuration: configuration)
    // end snippet
    return mainStore
}

/// The store example does what its comments say: the start syncs the count with the remote one.
@Test func theStoreExampleSyncsOnStart() async throws {
    try await runTheStore()
    let store = storeWithAnAwaitingInterceptor()
    try await syncWithRetries(store)
    #expect(store.state.count == 3)
}

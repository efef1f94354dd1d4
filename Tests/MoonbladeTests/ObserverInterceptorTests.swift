import Foundation
import Moonblade
import MoonbladeTestSupport
import Testing

struct StartItem: OnStartObserverDispatchable, StateUpdater {
    init() {}
    func updateState(_ state: inout TestState) { state.log.append("start") }
}

struct SkippedStartItem: OnStartObserverDispatchable, StateUpdater {
    init?() { nil }
    func updateState(_ state: inout TestState) { state.log.append("never") }
}

struct CountChanged: StateObserverDispatchable, StateUpdater {
    let description: String
    init?(prevState: any State, currentState: any State) {
        guard let prev = prevState as? TestState, let current = currentState as? TestState else { return nil }
        description = "changed \(prev.count)->\(current.count)"
    }
    func updateState(_ state: inout TestState) { state.log.append(description) }
}

struct SawIncrement: DispatchObserverDispatchable, StateUpdater {
    let description: String
    init?(dispatchedItem: any Dispatchable, prevState: any State, currentState: any State) {
        guard let increment = dispatchedItem as? Increment else { return nil }
        description = "saw increment by \(increment.by)"
    }
    func updateState(_ state: inout TestState) { state.log.append(description) }
}

/// Records every notification it is built from, so tests can tell whether the observer still fires.
let notifiedItems = Recorder<String>()

struct Notified: NotificationObserverDispatchable, StateUpdater {
    let name: String
    init?(notification: Notification) {
        name = notification.name.rawValue
        notifiedItems.append(name)
        if notification.object as? String == "skip" { return nil }
    }
    func updateState(_ state: inout TestState) { state.log.append("notified \(name)") }
}

@Suite("ObserverInterceptor", .hangGuard)
struct ObserverInterceptorTests {
    @Test("onStart dispatches its types at startup; nil is skipped, a type listed twice runs twice")
    func onStart() {
        let store = TestStore(interceptors: [
            ObserverInterceptor.observe([.onStart([StartItem.self, SkippedStartItem.self, StartItem.self])])
        ])
        #expect(store.state.log == ["start", "start"])
    }

    @Test("onStateChange fires after updaters when the predicate holds, never for side effects")
    func onStateChange() async throws {
        let calls = Recorder<Int>()
        let store = TestStore(interceptors: [
            ObserverInterceptor.observe([
                .onStateChange(
                    { prev, current in
                        calls.append(1)
                        return (prev as! TestState).count != (current as! TestState).count
                    }, [CountChanged.self])
            ])
        ])
        store.dispatch(Increment(by: 2))
        store.dispatch(Append("no count change"))
        #expect(store.state.log == ["changed 0->2", "no count change"])
        let callsBefore = calls.values.count
        _ = try await store.dispatch(Square(value: 1)).value
        #expect(calls.values.count == callsBefore)
    }

    @Test("typedStateChange sees typed states and is false for other state types")
    func typedStateChange() {
        let predicate = ObserverInterceptor.ObserverType.typedStateChange {
            (prev: TestState, current: TestState) in
            prev.count < current.count
        }
        #expect(predicate(TestState(count: 0), TestState(count: 1)))
        #expect(!predicate(TestState(count: 1), TestState(count: 0)))
        #expect(!predicate(OtherState(), OtherState()))
        let store = TestStore(interceptors: [
            ObserverInterceptor.observe([.onStateChange(predicate, [CountChanged.self])])
        ])
        store.dispatch(Increment())
        #expect(store.state.log == ["changed 0->1"])
    }

    @Test("onDispatch fires for the exact observed type only")
    func onDispatch() {
        let store = TestStore(interceptors: [
            ObserverInterceptor.observe([.onDispatch(Increment.self, [SawIncrement.self])])
        ])
        store.dispatch(Append("not observed"))
        store.dispatch(Increment(by: 4))
        #expect(store.state.log == ["not observed", "saw increment by 4"])
    }

    @Test("onNotification dispatches its types when the notification is posted; nil is skipped")
    func onNotification() {
        let center = NotificationCenter()
        let name = Notification.Name("ObserverInterceptorTests.onNotification")
        let store = TestStore(interceptors: [
            ObserverInterceptor.observe([.onNotification(name, [Notified.self])], notificationCenter: center)
        ])
        center.post(name: name, object: nil)
        center.post(name: name, object: "skip")
        center.post(name: Notification.Name("unrelated"), object: nil)
        #expect(store.state.log == ["notified \(name.rawValue)"])
    }

    @Test("several matching rules each fire, in rule order")
    func severalRules() {
        let store = TestStore(interceptors: [
            ObserverInterceptor.observe([
                .onDispatch(Increment.self, [SawIncrement.self]),
                // Only count changes: CountChanged itself changes the state, and a rule that matched
                // its own result would cascade forever.
                .onStateChange(
                    { prev, current in
                        (prev as? TestState)?.count != (current as? TestState)?.count
                    }, [CountChanged.self]),
                .onDispatch(Increment.self, [SawIncrement.self]),
            ])
        ])
        store.dispatch(Increment())
        #expect(store.state.log == ["saw increment by 1", "changed 0->1", "saw increment by 1"])
    }
}

import Foundation
import Logging
import Moonblade
import MoonbladeTestSupport
import Testing

@Suite("Store release", .hangGuard)
struct StoreReleaseTests {
    @Test("a released store is freed at once and its notification observers stop firing")
    func releasedAtOnce() async throws {
        let center = NotificationCenter()
        let name = Notification.Name("StoreReleaseTests.releasedAtOnce")
        weak var weakStore: TestStore?
        weak var weakDependencies: TestDependencies?
        do {
            let store = TestStore(interceptors: [
                DispatchableLogger.interceptor(
                    logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }),
                ObserverInterceptor.observe(
                    [.onNotification(name, [Notified.self]), .onStart([StartItem.self])],
                    notificationCenter: center
                ),
            ])
            _ = store.addListener { _, _ in }
            store.dispatch(Increment())
            _ = try await store.dispatch(ReadDispatchRead()).value
            center.post(name: name, object: nil)
            #expect(store.state.log.contains("notified \(name.rawValue)"))
            weakStore = store
            weakDependencies = store.dependencies
        }
        #expect(weakStore == nil)
        #expect(weakDependencies == nil)
        let notificationsBefore = notifiedItems.values.count
        center.post(name: name, object: nil)
        #expect(notifiedItems.values.count == notificationsBefore)
    }

    @Test("a next kept past its interceptor and called once the store is released fails with storeReleased")
    func keptNextAfterRelease() throws {
        /// Set once while the store starts, read after it is gone: no two threads at a time.
        final class KeptNext: @unchecked Sendable { var next: StoreInterceptorNext? }
        let kept = KeptNext()
        do {
            let store = TestStore(interceptors: [
                { _ in
                    { next in
                        kept.next = next
                        return next
                    }
                }
            ])
            store.dispatch(Increment())
            #expect(store.state.count == 1)
        }
        let next = try #require(kept.next)
        #expect(throws: StoreError.storeReleased) { try next(Increment()) }
    }

    @Test("dispatching through a context of a released store fails with storeReleased")
    func dispatchAfterRelease() async {
        let contexts = Recorder<InterceptorContext>()
        do {
            _ = TestStore(interceptors: [
                { context in
                    contexts.append(context)
                    return { next in next }
                }
            ])
        }
        await #expect(throws: StoreError.storeReleased) {
            try await contexts.values[0].dispatch(Increment()).value
        }
        await #expect(throws: StoreError.storeReleased) {
            try await contexts.values[0].anyDispatch(Increment()).value
        }
    }
}

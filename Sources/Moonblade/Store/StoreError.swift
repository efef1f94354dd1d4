/// The errors the store itself raises (items and interceptors throw their own).
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The item was dispatched to a store that no longer exists.
    case storeReleased
    /// The item is neither an ``AnyStateUpdater`` nor an ``AnySideEffect``.
    case unsupportedDispatchable(String)
    /// A type did not match: an updater or side effect written for another state or dependency type,
    /// or a dispatch whose value is not what the handle expects (for instance a returning side effect
    /// that an interceptor dropped, when its value cannot be nil).
    case typeMismatch(expected: String, found: String)
    /// A blocking ``DispatchHandle/wait(file:line:)`` at `place` (`file:line`) was made on the thread
    /// that is draining the store, while it was `processing` an item (in an interceptor, an updater
    /// or a listener): the awaited item is queued behind that one, so the wait could never end.
    case unservableWait(place: String, processing: String)
    /// A dispatch was asked to retry a negative number of times (`retries` counts the attempts after
    /// the first); nothing was dispatched.
    case invalidRetryCount(Int)

    /// A one-line description of the error.
    public var description: String {
        switch self {
        case .storeReleased:
            "the store was released before the item could be dispatched"
        case .unsupportedDispatchable(let type):
            "\(type) is neither a state updater nor a side effect"
        case .typeMismatch(let expected, let found):
            "type mismatch: expected \(expected), found \(found)"
        case .unservableWait(let place, let processing):
            "the wait at \(place) cannot be served: it blocks the store's serial drain while it processes "
                + "\(processing), and the awaited item runs after that; await the handle's value from a side "
                + "effect or a SideEffectInterceptor instead"
        case .invalidRetryCount(let retries):
            "a dispatch cannot be retried \(retries) times: retries counts the attempts after the first, 0 or more "
                + "(Hydra's .retry(n) is retries: n - 1)"
        }
    }
}

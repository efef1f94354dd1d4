/// The value a ``Store`` holds: the whole state of an application.
///
/// As in Katana, a state must be constructible empty: the store uses ``init()`` as the placeholder
/// that `getState` returns while the dependencies are being built, before the store's state
/// initializer has run. States cross threads (listeners, side effects), so they are `Sendable`.
public protocol State: Sendable {
    /// Creates the empty state.
    init()
}

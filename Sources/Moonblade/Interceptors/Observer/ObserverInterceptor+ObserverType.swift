import Foundation

extension ObserverInterceptor {
    /// One rule of an ``ObserverInterceptor``: what to watch and which item types to dispatch.
    public enum ObserverType: Sendable {
        /// Tells whether the change from the first state to the second should trigger a rule.
        public typealias StateChangeObserver = @Sendable (_ prev: any State, _ current: any State) -> Bool

        /// Tells whether the change from the first state to the second should trigger a rule, with
        /// the states seen as `S`.
        public typealias TypedStateChangeObserver<S: State> = @Sendable (_ prev: S, _ current: S) -> Bool

        /// After every state updater (never a side effect), dispatches the types if the predicate holds.
        case onStateChange(
            _ predicate: StateChangeObserver, _ dispatchables: [any StateObserverDispatchable.Type])

        /// When `notification` is posted, dispatches the types.
        case onNotification(
            _ notification: Notification.Name, _ dispatchables: [any NotificationObserverDispatchable.Type])

        /// After an item of exactly the observed type is handled, dispatches the types: after an updater
        /// is applied, or after a side effect has started (not finished, as in Katana, whose chain runs a
        /// side effect to its end), with the state as it started.
        case onDispatch(
            _ observed: any Dispatchable.Type, _ dispatchables: [any DispatchObserverDispatchable.Type])

        /// When the store starts (its interceptors are set up), dispatches the types.
        case onStart(_ dispatchables: [any OnStartObserverDispatchable.Type])

        /// Turns a predicate on states of type `S` into a ``StateChangeObserver``; it is false for
        /// states of another type.
        public static func typedStateChange<S: State>(
            _ predicate: @escaping TypedStateChangeObserver<S>
        ) -> StateChangeObserver {
            { prev, current in
                guard let prev = prev as? S, let current = current as? S else { return false }
                return predicate(prev, current)
            }
        }
    }
}

import Foundation

/// The live part of an ``ObserverInterceptor`` in one store: its notification observers and rules.
///
/// The store's interceptor chain owns it, so it is freed with the store and then removes its
/// notification observers. Those observers capture only the (weak) context, never this object,
/// because the notification center would otherwise keep it, and its observers, alive forever.
final class StoreObserver {
    private let rules: [ObserverInterceptor.ObserverType]
    private let context: InterceptorContext
    private let notificationCenter: NotificationCenter
    private var notificationObservers: [any NSObjectProtocol] = []

    init(
        rules: [ObserverInterceptor.ObserverType], context: InterceptorContext,
        notificationCenter: NotificationCenter
    ) {
        self.rules = rules
        self.context = context
        self.notificationCenter = notificationCenter
        for case .onNotification(let name, let types) in rules {
            notificationObservers.append(
                notificationCenter.addObserver(forName: name, object: nil, queue: nil) { notification in
                    Self.dispatch(types.map { $0.init(notification: notification) }, to: context)
                }
            )
        }
    }

    deinit {
        for observer in notificationObservers {
            notificationCenter.removeObserver(observer)
        }
    }

    /// Dispatches the items of the `.onStart` rules.
    func dispatchOnStartItems() {
        for case .onStart(let types) in rules {
            Self.dispatch(types.map { $0.init() }, to: context)
        }
    }

    /// Applies the state change and dispatch rules to an item the store has just handled.
    func observe(_ dispatchable: any Dispatchable, prevState: any State, currentState: any State) {
        // A runtime conformance lookup: only worth doing if a state change rule asks.
        lazy var isSideEffect = dispatchable is any AnySideEffect
        for rule in rules {
            switch rule {
            case .onStateChange(let predicate, let types)
            where !isSideEffect && predicate(prevState, currentState):
                Self.dispatch(
                    types.map { $0.init(prevState: prevState, currentState: currentState) }, to: context)
            case .onDispatch(let observed, let types) where observed == type(of: dispatchable):
                Self.dispatch(
                    types.map {
                        $0.init(
                            dispatchedItem: dispatchable, prevState: prevState, currentState: currentState)
                    },
                    to: context
                )
            default:
                continue
            }
        }
    }

    /// Dispatches the items that were built, skipping the nil ones.
    private static func dispatch(_ items: [(any Dispatchable)?], to context: InterceptorContext) {
        for case let item? in items {
            context.anyDispatch(item)
        }
    }
}

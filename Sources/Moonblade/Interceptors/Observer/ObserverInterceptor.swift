import Foundation

/// Katana's observer interceptor: dispatches items when the store starts, when the state changes in a
/// way you describe, when an item of a given type is dispatched, or when a notification is posted.
///
/// ```swift
/// ObserverInterceptor.observe([
///     .onStart([LoadTodos.self]),
///     .onStateChange(ObserverInterceptor.ObserverType.typedStateChange { (old: AppState, new) in
///         old.todos != new.todos
///     }, [SaveTodos.self]),
///     .onDispatch(AddTodo.self, [TrackAddition.self]),
///     .onNotification(.appDidBecomeActive, [LoadTodos.self]),
/// ])
/// ```
///
/// Items are built with their failable initializers; a nil result is skipped. Every matching rule
/// fires, and a type listed twice is dispatched twice. Observed items are dispatched after the item
/// that triggered them, in rule order. The notification observers are removed when the store is freed.
public enum ObserverInterceptor {
    /// Returns an interceptor that applies `rules`, listening for notifications on `notificationCenter`.
    public static func observe(
        _ rules: [ObserverType],
        notificationCenter: NotificationCenter = .default
    ) -> StoreInterceptor {
        { context in
            let observer = StoreObserver(
                rules: rules, context: context, notificationCenter: notificationCenter)
            observer.dispatchOnStartItems()
            return { next in
                { dispatchable in
                    let prevState = context.getAnyState()
                    try next(dispatchable)
                    observer.observe(dispatchable, prevState: prevState, currentState: context.getAnyState())
                }
            }
        }
    }
}

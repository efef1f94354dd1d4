import Foundation

/// An item an ``ObserverInterceptor`` dispatches when a notification is posted.
public protocol NotificationObserverDispatchable: Dispatchable {
    /// Creates the item for `notification`, or returns nil to dispatch nothing.
    init?(notification: Notification)
}

/// Settings of a ``Store`` that are not part of its logic.
public struct StoreConfiguration: Sendable {
    /// The priority of the tasks side effects run in; `nil` inherits the dispatcher's priority.
    public var sideEffectPriority: TaskPriority?

    /// Creates a configuration.
    public init(sideEffectPriority: TaskPriority? = nil) {
        self.sideEffectPriority = sideEffectPriority
    }

    /// The configuration stores use unless told otherwise.
    public static let `default` = StoreConfiguration()
}

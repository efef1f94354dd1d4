/// A dependency container with nothing in it, for stores whose side effects need no dependencies.
public final class EmptySideEffectDependencyContainer: SideEffectDependencyContainer {
    /// Creates the empty container; it keeps neither closure.
    public init(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {}
}

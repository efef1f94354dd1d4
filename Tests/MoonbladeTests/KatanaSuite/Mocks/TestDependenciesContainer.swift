import Moonblade

/// The Katana suite's dependency container (KatanaTests/Mocks/TestDependenciesContainer.swift): it
/// offers a delay, which Katana's side effects await to finish later than the items after them.
final class TestDependenciesContainer: SideEffectDependencyContainer {
    init(dispatch: @escaping AnyDispatch, getState: @escaping GetState) {}

    /// Suspends the calling side effect for `interval`.
    func delay(of interval: Duration) async throws {
        try await Task.sleep(for: interval)
    }
}

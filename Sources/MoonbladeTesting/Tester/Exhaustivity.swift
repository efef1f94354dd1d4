/// How strictly a ``PluginTester`` checks what happens in the store.
public enum Exhaustivity: Sendable, Equatable {
    /// Every change must be stated, every item dispatched by a side effect received, and no side
    /// effect may be left running: the default, like TCA's `TestStore`.
    case on
    /// Only what the test states is checked: an assertion closure must hold for the state after the
    /// item (changes it does not mention are ignored), `receive` skips items until one with the name,
    /// and unreceived items and running side effects at the end are not failures.
    case off
}

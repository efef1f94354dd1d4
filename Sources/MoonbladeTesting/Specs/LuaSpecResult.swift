/// The outcome of one spec case.
public enum LuaSpecResult: Sendable, Hashable {
    /// Every assertion held and nothing raised.
    case passed
    /// An assertion failed, the case raised an error, or its file did not load.
    case failed(LuaSpecFailure)
    /// The case is declared with `pending("name")` or `it("name")` without a body: not run.
    case pending
}

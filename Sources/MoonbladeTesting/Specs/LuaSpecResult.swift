/// The outcome of one spec case.
public enum LuaSpecResult: Sendable, Hashable {
    case passed
    case failed(LuaSpecFailure)
}

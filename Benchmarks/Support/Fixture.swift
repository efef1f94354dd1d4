/// A value built on first use, so a benchmark's setup runs in its own warm-up iteration (the tool runs
/// each benchmark in a process of its own) instead of for every benchmark at registration.
public final class Fixture<Value> {
    private let make: () throws -> Value
    private var made: Value?

    public init(_ make: @escaping () throws -> Value) {
        self.make = make
    }

    /// The value, built by the first call.
    public func value() throws -> Value {
        if let made { return made }
        let value = try make()
        made = value
        return value
    }

    /// The value if ``value()`` has built it, without building it: for tearing it down.
    public var builtValue: Value? { made }
}

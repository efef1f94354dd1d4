/// The argument of the `bench.echo` dependency.
public struct EchoRequest: Codable, Sendable {
    public var n: Int

    public init(n: Int) { self.n = n }
}

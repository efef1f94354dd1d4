import Moonblade

/// The native baseline of the side-effect round trip: a Swift side effect awaiting the same Swift async
/// function that `bench.echo` exposes to Lua.
public struct NativeEcho: ReturningSideEffect, Decodable {
    public var n: Int

    public init(n: Int) { self.n = n }

    public func sideEffect(_ context: any AnySideEffectContext) async throws -> Int {
        await BenchmarkStores.echo(n)
    }
}

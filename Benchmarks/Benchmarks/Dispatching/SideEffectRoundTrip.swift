import Benchmark
import BenchmarkSupport
import Moonblade
import Workloads

/// Benchmark 4: a Lua side effect awaiting a Swift async dependency (`bench.echo`), against one that
/// returns at once (the cost of a Lua side effect itself), one awaiting it ten times in one run (what
/// each await after the first adds) and a Swift side effect awaiting the same function. Each is
/// dispatched and awaited until it returns its value.
func registerSideEffectRoundTrips() {
    let native = Fixture { BenchmarkStores.native(initialState: CounterState()) }
    let lua = Fixture { try BenchmarkStores.lua(initialState: CounterState()) }

    Benchmark("Side effect: native, awaiting a Swift async function", configuration: .micro) { benchmark in
        let store = try native.value()
        for n in benchmark.scaledIterations { blackHole(try await store.dispatch(NativeEcho(n: n)).value) }
    }
    Benchmark("Side effect: Lua, returning at once", configuration: .micro) { benchmark in
        let host = try lua.value()
        for n in benchmark.scaledIterations {
            blackHole(try await host.dispatch("bench.noop", EchoRequest(n: n), returning: Int.self).value)
        }
    }
    Benchmark("Side effect: Lua, awaiting a Swift async dependency", configuration: .micro) { benchmark in
        let host = try lua.value()
        for n in benchmark.scaledIterations {
            blackHole(try await host.dispatch("bench.echo", EchoRequest(n: n), returning: Int.self).value)
        }
    }
    Benchmark("Side effect: Lua, awaiting a Swift async dependency ten times", configuration: .micro) { benchmark in
        let host = try lua.value()
        for n in benchmark.scaledIterations {
            blackHole(try await host.dispatch("bench.echo_ten", EchoRequest(n: n), returning: Int.self).value)
        }
    }
}

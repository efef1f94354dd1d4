import Foundation
import Hummingbird
import Moonblade
import MoonbladeHost
import MoonbladeHummingbird
import Workloads

// The server `Benchmarks/HTTP/run` loads with wrk: the host routes on a plugin host running
// `Benchmarks/Plugins/bench`, with Swift twins of `bench.increment` and `bench.echo` registered as
// `native.increment` and `native.echo`, so one route (`POST /dispatch/{item}`) serves the Lua items and
// the Swift ones. (A registered Swift side effect's value is not sent back: `native.echo` answers 204
// where `bench.echo` answers its value, a few bytes of JSON.)

/// The Swift twin of the Lua updater `bench.increment`, dispatchable by name.
struct NativeIncrement: StateUpdater, Decodable {
    func updateState(_ state: inout CounterState) { state.counter += 1 }
}

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8088
let host = try BenchmarkStores.lua(initialState: CounterState())
try host.register(NativeIncrement.self, as: "native.increment")
try host.register(NativeEcho.self, as: "native.echo")
let router = Router()
HostRoutes(host).add(to: router.group())
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()

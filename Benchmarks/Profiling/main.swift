// Runs one benchmark workload in a loop without the benchmark harness, which valgrind cannot run
// (Scripts/profile). Only `profiledLoop` is measured: setup stays out of the profile.
//
//   Profiling dispatch native|lua [repetitions]
//   Profiling into|out luaCoders|handWritten|jsonDetour <items> [repetitions]
//   Profiling small into|out luaCoders|handWritten [repetitions]   (one EchoRequest: the fixed cost per call)
//   Profiling resident field|item|sum|native|host <items> [repetitions]   (sum: every item read; native: a Swift updater flipping one
//                                                                      item; host: bench.toggle through a PluginHost)
//   Profiling resident memory <items> [commits]    (prints bytes, resident against fresh)
//   Profiling sideEffect native|noop|echo|echo_ten [repetitions]   (dispatched and awaited, one at a time)
//   Profiling devtools none|closed|open [repetitions]   (bench.increment on a host without the devtools'
//       interceptor and tracer, with them and no page open, with a reader of the event stream in this
//       process: what the dispatching thread pays; the reader's JSON is on its own thread)
//
// A side effect runs in tasks on other threads, which callgrind's per-thread `--toggle-collect` does
// not follow: Scripts/profile counts the whole process for it (setup included; run it with 0
// repetitions to see the setup alone).
//   Profiling journal typed|json|counter <items> [repetitions]   (group commit; counter: CounterState, the
//       benchmark's typed state, items ignored. The writer thread runs outside profiledLoop: count it with
//       valgrind --tool=callgrind --separate-threads=yes, Scripts/profile journal … does)
import Foundation
import Moonblade
import MoonbladeHummingbird
import Workloads

/// Runs `body` `repetitions` times; Scripts/profile collects costs inside this function only.
@inline(never)
func profiledLoop(_ repetitions: Int, _ body: () throws -> Void) rethrows {
    for _ in 0..<repetitions { try body() }
}

/// Runs `body` `repetitions` times, awaiting each, in a task the main thread blocks on: valgrind
/// crashes under the main thread's `dispatch_main` that a top-level `await` would start.
@inline(never)
func profiledLoop(_ repetitions: Int, _ body: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            for _ in 0..<repetitions { try await body() }
        } catch {
            print("Profiling: \(error)")
            exit(1)
        }
        done.signal()
    }
    done.wait()
}

func usage() -> Never {
    print("usage: Profiling dispatch native|lua [repetitions] [items next to the counter (lua)]")
    print("       Profiling into|out luaCoders|handWritten|jsonDetour <items> [repetitions]")
    print("       Profiling small into|out luaCoders|handWritten [repetitions]")
    print("       Profiling resident field|item|sum|native|host|memory <items> [repetitions]")
    print("       Profiling sideEffect native|noop|echo|echo_ten [repetitions]")
    print("       Profiling devtools none|closed|open [repetitions]")
    print("       Profiling journal typed|json|counter <items> [repetitions]")
    exit(2)
}

let arguments = CommandLine.arguments.dropFirst().map { $0 }
func argument(_ index: Int) -> String? { index < arguments.count ? arguments[index] : nil }

switch (argument(0), argument(1)) {
case ("dispatch", "native"):
    let store = BenchmarkStores.native(initialState: CounterState())
    profiledLoop(Int(argument(2) ?? "") ?? 10_000) { store.dispatch(Increment<CounterState>()) }
case ("dispatch", "lua"):
    let repetitions = Int(argument(2) ?? "") ?? 10_000
    if let count = Int(argument(3) ?? "") {  // the counter next to `count` items, as in StateGrowth
        let host = try BenchmarkStores.lua(initialState: ItemsState(count: count))
        try profiledLoop(repetitions) { try host.dispatch("bench.increment") }
    } else {
        let host = try BenchmarkStores.lua(initialState: CounterState())
        try profiledLoop(repetitions) { try host.dispatch("bench.increment") }
    }
case ("devtools", let mode?) where ["none", "closed", "open"].contains(mode):
    let repetitions = Int(argument(2) ?? "") ?? 10_000
    let events = HostEvents()
    let host =
        mode == "none"
        ? try BenchmarkStores.lua(initialState: CounterState())
        : try BenchmarkStores.lua(
            initialState: CounterState(), interceptors: [events.interceptor()], configuration: .init(tracer: events.tracer()))
    // Subscribed before the loop; the queue holds every message, so none is dropped.
    let messages = mode == "open" ? events.messages(limit: 1 << 20) : nil
    let reader = Task { for await _ in messages ?? AsyncStream { $0.finish() } {} }
    try profiledLoop(repetitions) { try host.dispatch("bench.increment") }
    reader.cancel()
case (let direction?, let wayName?) where direction == "into" || direction == "out":
    guard let way = MappingFixture.Way.allCases.first(where: { "\($0)" == wayName }),
        let count = Int(argument(2) ?? "")
    else { usage() }
    let mapping = try MappingFixture(count: count)
    let repetitions = Int(argument(3) ?? "") ?? max(1, 100_000 / count)
    if direction == "into" {
        try profiledLoop(repetitions) { try mapping.mapIntoLua(way) }
    } else {
        try profiledLoop(repetitions) { _ = try mapping.mapOutOfLua(way) }
    }
case ("small", let direction?) where direction == "into" || direction == "out":
    guard let way = SmallValueFixture.Way.allCases.first(where: { "\($0)" == argument(2) }) else { usage() }
    let small = try SmallValueFixture()
    let repetitions = Int(argument(3) ?? "") ?? 100_000
    if direction == "into" {
        try profiledLoop(repetitions) { try small.mapIntoLua(way) }
    } else {
        try profiledLoop(repetitions) { _ = try small.mapOutOfLua(way) }
    }
case ("resident", "memory"):
    guard let count = Int(argument(2) ?? "") else { usage() }
    let bytes = try ResidentStateWorkload.memory(count: count, commits: Int(argument(3) ?? "") ?? 100)
    print("resident \(bytes.resident) B, freshly encoded \(bytes.fresh) B, ratio \(Double(bytes.resident) / Double(bytes.fresh))")
case ("resident", let changeName?) where ["field", "item", "sum"].contains(changeName):
    guard let count = Int(argument(2) ?? "") else { usage() }
    let workload = try ResidentStateWorkload(count: count)
    let change: ResidentStateWorkload.Change = ["field": .topLevelField, "item": .oneItem, "sum": .readEveryItem][changeName]!
    try profiledLoop(Int(argument(3) ?? "") ?? max(10, 100_000 / count)) { try workload.draft(change) }
case ("resident", "host"):
    guard let count = Int(argument(2) ?? "") else { usage() }
    let host = try BenchmarkStores.lua(initialState: ItemsState(count: count))
    try profiledLoop(Int(argument(3) ?? "") ?? max(10, 100_000 / count)) {
        try host.dispatch("bench.toggle", ["at": count / 2 + 1])
    }
case ("resident", "native"):
    guard let count = Int(argument(2) ?? "") else { usage() }
    let store = BenchmarkStores.native(initialState: ItemsState(count: count))
    profiledLoop(Int(argument(3) ?? "") ?? max(10, 100_000 / count)) { store.dispatch(ToggleItem(index: count / 2)) }
case ("sideEffect", "native"):
    let store = BenchmarkStores.native(initialState: CounterState())
    profiledLoop(Int(argument(2) ?? "") ?? 10_000) { _ = try await store.dispatch(NativeEcho(n: 1)).value }
case ("sideEffect", let effect?) where ["noop", "echo", "echo_ten"].contains(effect):
    let host = try BenchmarkStores.lua(initialState: CounterState())
    let name = "bench.\(effect)"  // made once, as the benchmark's literal is
    profiledLoop(Int(argument(2) ?? "") ?? 10_000) {
        _ = try await host.dispatch(name, EchoRequest(n: 1), returning: Int.self).value
    }
case ("journal", "typed"):
    let store = try JournaledStore(initialState: ItemsState(count: Int(argument(2) ?? "") ?? 0), durability: .groupCommit)
    try profiledLoop(Int(argument(3) ?? "") ?? 100_000) { try store.host.dispatch("bench.increment") }
    try store.journal.flush()
case ("journal", "counter"):
    let store = try JournaledStore(initialState: CounterState(), durability: .groupCommit)
    try profiledLoop(Int(argument(3) ?? "") ?? 100_000) { try store.host.dispatch("bench.increment") }
    try store.journal.flush()
case ("journal", "json"):
    let store = try JournaledStore(initialState: ItemsState.json(count: Int(argument(2) ?? "") ?? 0), durability: .groupCommit)
    try profiledLoop(Int(argument(3) ?? "") ?? 100_000) { try store.host.dispatch("bench.increment") }
    try store.journal.flush()
default:
    usage()
}

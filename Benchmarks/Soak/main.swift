// Soak run: a million mixed dispatches at the default limits, with reloads throughout, and
// the process's resident memory (RSS) checked to stay flat: after a warm-up, it may grow by at most
// 10 %. Exits 1 when it grows more, printing RSS along the way.
//
//   Soak [dispatches] [kind]   (default 1,000,000 of every kind in turn; kind 0…5 runs only that one,
//                               to find which leaks; Scripts/soak runs it in release)
import Foundation
import Moonblade
import MoonbladeHost
import Workloads

/// The process's resident set, in bytes, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

let total = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let onlyKind = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) }
let host = try BenchmarkStores.lua(initialState: CounterState())
let tasks = 4
let perTask = total / tasks
let warmUp = total / 10

/// One task's share: every kind of item in turn, awaited; a failure is expected from `bench.fail`.
func dispatchMixed(_ count: Int, offset: Int) async throws {
    for n in 0..<count {
        switch onlyKind ?? (n + offset) % 6 {
        case 0: try await host.dispatch("bench.increment").value
        case 1: try await host.store.dispatch(Increment<CounterState>()).value
        case 2: _ = try await host.dispatch("bench.echo", EchoRequest(n: n), returning: Int.self).value
        case 3: try await host.dispatch("bench.relay").value
        case 4: _ = try await host.dispatch("bench.noop", EchoRequest(n: n), returning: Int.self).value
        default:
            do {
                try await host.dispatch("bench.fail").value
                fatalError("bench.fail did not fail")
            } catch is PluginError {}
        }
    }
}

var baseline = 0
var worst = 0
let rounds = 10
for round in 1...rounds {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks { group.addTask { try await dispatchMixed(perTask / rounds, offset: task) } }
        try await group.waitForAll()
    }
    try await host.reload(plugin: "bench")
    let rss = residentBytes()
    if round * total / rounds <= warmUp { baseline = rss } else { worst = max(worst, rss) }
    print("after \(round * total / rounds) dispatches: RSS \(megabytes(rss)), Lua \(megabytes(host.memoryInUse))")
}
let growth = Double(worst - baseline) / Double(baseline)
print(String(format: "growth after warm-up: %+.1f %% (limit +10 %%)", growth * 100))
exit(growth <= 0.10 ? 0 : 1)

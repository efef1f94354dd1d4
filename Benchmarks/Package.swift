// swift-tools-version: 6.1
//
// Moonblade's benchmarks (ordo-one/benchmark). A package of its own that depends on the root package
// by path, so the root's `swift build`/`swift test` never builds it. Run them with `Scripts/bench`;
// the figures and how to read them are in BENCHMARKS.md.

import PackageDescription

/// A benchmark executable in `Benchmarks/<name>`, as the benchmark plugin expects.
func benchmarkTarget(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies + [
            "Workloads", "BenchmarkSupport",
            .product(name: "Benchmark", package: "benchmark"),
        ],
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "MoonbladeBenchmarks",
    dependencies: [
        .package(name: "Moonblade", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        // What the benchmarks measure (states, stores, the mapping fixture), free of the benchmark
        // harness so that Profiling can run it under valgrind.
        .target(
            name: "Workloads",
            dependencies: [
                .product(name: "Moonblade", package: "Moonblade"),
                .product(name: "MoonbladeLua", package: "Moonblade"),
                .product(name: "MoonbladeResidentState", package: "Moonblade"),
                .product(name: "MoonbladeHost", package: "Moonblade"),
                .product(name: "MoonbladeJournal", package: "Moonblade"),
                .product(name: "CLua", package: "Moonblade"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Workloads"
        ),
        // The benchmarks' configurations and lazily built fixtures.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Support"
        ),
        // One workload in a loop, for `valgrind --tool=callgrind` (Scripts/profile): valgrind cannot
        // run the benchmark harness.
        .executableTarget(
            name: "Profiling",
            dependencies: ["Workloads", .product(name: "MoonbladeHummingbird", package: "Moonblade")],
            path: "Profiling"),
        // Memory stays flat over a million mixed dispatches with reloads (Scripts/soak).
        .executableTarget(name: "Soak", dependencies: ["Workloads"], path: "Soak"),
        // The host's HTTP routes under wrk (Benchmarks/HTTP/run): a Lua updater against a Swift one on
        // one route, a Lua side effect awaiting Swift, reloads under load.
        .executableTarget(
            name: "HTTPServer",
            dependencies: [
                "Workloads", .product(name: "MoonbladeHummingbird", package: "Moonblade"),
                .product(name: "Moonblade", package: "Moonblade"), .product(name: "MoonbladeHost", package: "Moonblade"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "HTTPServer"),
        // 1 and 4: updater dispatch and side-effect round trips, native Swift against Lua.
        benchmarkTarget("Dispatching", dependencies: [.product(name: "Moonblade", package: "Moonblade")]),
        // 2: LuaEncoder/LuaDecoder against hand-written C-API code and a JSON detour.
        benchmarkTarget("Mapping"),
        // 3: a Lua updater as the state grows.
        benchmarkTarget("StateGrowth"),
        // Lua updaters on the resident state (drafts) against the full mapping and native.
        benchmarkTarget("ResidentState", dependencies: [.product(name: "Moonblade", package: "Moonblade")]),
        // 5: hot-reload latency, file write to new code active, under a steady dispatch load.
        benchmarkTarget("Reloading"),
        // What the dispatch journal adds to a Lua updater dispatch, group commit and strict.
        benchmarkTarget(
            "Journaling",
            dependencies: [
                .product(name: "Moonblade", package: "Moonblade"),
                .product(name: "MoonbladeHost", package: "Moonblade"),
                .product(name: "MoonbladeJournal", package: "Moonblade"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

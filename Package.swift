// swift-tools-version: 6.1
//
// Moonblade: a Katana-style store for Swift whose business logic can live in hot-reloadable
// Lua 5.4 plugins. ARCHITECTURE.md says what each target owns.

import PackageDescription

/// A target's Lua glue, `Lua/<name>.lua`, embedded in the binary: read as `PackageResources.<name>_lua`.
func luaGlue(_ names: String...) -> [Resource] {
    names.map { .embedInCode("Lua/\($0).lua") }
}

let package = Package(
    name: "Moonblade",
    products: [
        .library(name: "Moonblade", targets: ["Moonblade"]),
        .library(name: "MoonbladeLua", targets: ["MoonbladeLua"]),
        // For the benchmarks of the resident state alone (Benchmarks/Workloads); the host reaches it
        // through its package API.
        .library(name: "MoonbladeResidentState", targets: ["MoonbladeResidentState"]),
        .library(name: "MoonbladeHost", targets: ["MoonbladeHost"]),
        .library(name: "MoonbladeTesting", targets: ["MoonbladeTesting"]),
        .library(name: "MoonbladeJournal", targets: ["MoonbladeJournal"]),
        .library(name: "MoonbladeHummingbird", targets: ["MoonbladeHummingbird"]),
        .executable(name: "moonblade", targets: ["moonblade"]),
        // `moonblade serve`: its own executable, so only who serves builds Hummingbird (see MoonbladeCommand).
        .executable(name: "moonblade-serve", targets: ["moonblade-serve"]),
        // For code that needs the raw C API next to the bridge (the benchmarks' hand-written baseline).
        .library(name: "CLua", targets: ["CLua"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // No traits: the server needs neither swift-configuration nor the full Foundation.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        // Lua 5.4 from the system (Debian: liblua5.4-dev), plus the shim Swift needs to use it safely.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // libedit (Debian: libedit-dev) behind a small C layer: the repl's line editing and history.
        .target(
            name: "CLineEditor",
            linkerSettings: [.linkedLibrary("edit")]
        ),
        // The store: Katana's model on async/await. No Lua in it.
        .target(
            name: "Moonblade",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        // What holds guest (plugin) code in, in C: the limits, the guarded library, the sandbox, a pattern
        // matcher that counts its steps, error descriptions.
        .target(name: "LuaGuest", dependencies: ["CLua"]),
        // The resident state's machinery in C: drafts, read-only views, finishing a draft into a version.
        .target(name: "CResidentState", dependencies: ["CLua", "LuaGuest"]),
        // A safe Swift face of the Lua C API.
        // Its Lua glue is in Lua/*.lua, embedded in the binary (a deployed executable needs no resource folder).
        .target(name: "MoonbladeLua", dependencies: ["CLua", "LuaGuest"], resources: luaGlue("await", "library")),
        // The state kept in Lua between dispatches: versions, drafts, decoding only what changed.
        .target(name: "MoonbladeResidentState", dependencies: ["CLua", "CResidentState", "MoonbladeLua"]),
        // The plugin host: Lua plugins as store items.
        .target(
            name: "MoonbladeHost",
            dependencies: [
                "Moonblade", "MoonbladeLua", "MoonbladeResidentState", .product(name: "Logging", package: "swift-log"),
                // Only the APIs: the backends are the application's (the CLI has small printing ones).
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: luaGlue("interceptors", "require", "side_effects")
        ),
        // The test harness for plugins: PluginTester for Swift tests, the Lua spec runner.
        .target(
            name: "MoonbladeTesting",
            dependencies: [
                "MoonbladeHost", "MoonbladeLua", "Moonblade",
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: luaGlue("spec_assertions", "spec_dsl", "spec_head")
        ),
        // The dispatch journal (SQLite through GRDB): entries, patches, snapshots, recovery, replay.
        .target(
            name: "MoonbladeJournal",
            dependencies: [
                "MoonbladeHost", "MoonbladeLua", "MoonbladeResidentState", "Moonblade",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The command-line host: `moonblade run`, `repl`, `check`, `test`, `replay`, `journal`.
        .executableTarget(
            name: "moonblade",
            dependencies: [
                "Moonblade", "MoonbladeHost", "MoonbladeTesting", "MoonbladeJournal", "CLineEditor",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            // `moonblade new plugin`'s templates, compiled into the executable: it needs no bundle beside it.
            resources: [.embedInCode("Templates/plugin.lua"), .embedInCode("Templates/plugin_spec.lua")]
        ),
        // A host behind a web service: Hummingbird routes a user mounts in their app, the event stream.
        .target(
            name: "MoonbladeHummingbird",
            dependencies: [
                "Moonblade", "MoonbladeHost", "MoonbladeJournal",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // The devtools page, compiled into the library: a server needs no bundle beside it.
            resources: [
                .embedInCode("Devtools/Page/devtools.html"), .embedInCode("Devtools/Page/devtools.css"),
                .embedInCode("Devtools/Page/devtools.js"),
            ]
        ),
        // `moonblade serve`, which `moonblade` runs from next to itself: the routes on their own.
        .executableTarget(
            name: "moonblade-serve",
            dependencies: [
                "MoonbladeHummingbird", "MoonbladeHost", "MoonbladeJournal",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The embedding example (README, "Embed the host in a Swift app"): a typed state, a Swift
        // dependency, hot reload, and a PluginTester test; built by `swift build` so it stays true.
        .target(name: "NotesApp", dependencies: ["Moonblade", "MoonbladeHost"], path: "Examples/Notes/Sources/NotesApp"),
        .executableTarget(
            name: "notes-example", dependencies: ["NotesApp", "MoonbladeHost"], path: "Examples/Notes/Sources/notes-example"),
        .testTarget(
            name: "NotesAppTests", dependencies: ["NotesApp", "MoonbladeHost", "MoonbladeTesting"],
            path: "Examples/Notes/Tests/NotesAppTests"),

        // The service example (README, "A host behind a web service"): a typed order desk whose pricing,
        // discounts and validation are Lua plugins, behind Hummingbird routes of its own.
        .target(
            name: "OrderDesk",
            dependencies: [
                "Moonblade", "MoonbladeHost", "MoonbladeHummingbird",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            path: "Examples/OrderDesk/Sources/OrderDesk"),
        .executableTarget(
            name: "orderdesk-example",
            dependencies: ["OrderDesk", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/OrderDesk/Sources/orderdesk-example"),
        .testTarget(
            name: "OrderDeskTests",
            dependencies: [
                "OrderDesk", "MoonbladeHost", "MoonbladeTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Examples/OrderDesk/Tests/OrderDeskTests"),

        // What several test targets share: fixtures, scratch folders, waiting for other tasks.
        .target(name: "MoonbladeTestSupport", path: "Tests/MoonbladeTestSupport"),
        .testTarget(
            name: "MoonbladeTests",
            dependencies: ["Moonblade", "MoonbladeTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "MoonbladeHostTests",
            dependencies: [
                "MoonbladeHost", "MoonbladeTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "MoonbladeJournalTests",
            dependencies: [
                "MoonbladeJournal", "MoonbladeHost", "MoonbladeTesting", "Moonblade", "MoonbladeTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "MoonbladeTestingTests",
            dependencies: [
                "MoonbladeTesting", "MoonbladeHost", "Moonblade", "MoonbladeTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // End-to-end: runs the built `moonblade` executable (the dependency makes SwiftPM build it).
        .testTarget(
            name: "MoonbladeCLITests", dependencies: ["moonblade", "MoonbladeHost", "MoonbladeJournal", "MoonbladeTestSupport"]),
        // The web face, through Hummingbird's test client and a real WebSocket client; and
        // `moonblade serve` end to end (the dependencies make SwiftPM build both executables).
        .testTarget(
            name: "MoonbladeHummingbirdTests",
            dependencies: [
                "MoonbladeHummingbird", "MoonbladeHost", "MoonbladeJournal", "MoonbladeTestSupport", "moonblade",
                "moonblade-serve",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "MoonbladeResidentStateTests",
            dependencies: [
                "MoonbladeTestSupport", "MoonbladeResidentState", "MoonbladeLua",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "MoonbladeLuaTests",
            dependencies: [
                "MoonbladeTestSupport",
                "MoonbladeLua",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The documents' examples: every Swift block is a snippet region compiled here (or in another
        // target), every Lua block compiles, every whole plugin passes the shape check.
        .testTarget(
            name: "MoonbladeDocumentationTests",
            dependencies: ["MoonbladeHost", "MoonbladeTesting", "MoonbladeJournal", "MoonbladeTestSupport"],
            exclude: ["Manifests"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.1
//
// Moonblade's fuzz harnesses written in Swift (libFuzzer, AddressSanitizer). A package of its own that
// depends on the root package by path, so the root's `swift build`/`swift test` never sees the fuzzer
// flags. Run one with `Scripts/fuzz TARGET [SECONDS]`; FUZZING.md says what each compares and what
// they found. The pattern matcher's harness is C (Matcher/), built by the script with clang.

import PackageDescription

/// A libFuzzer harness: an executable whose `main.swift` hands its test function to `runFuzzer`,
/// built by `Scripts/fuzz` with `-sanitize=fuzzer,address`.
func harness(_ name: String, dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .executableTarget(name: name, dependencies: dependencies + ["FuzzSupport"], exclude: exclude)
}

let package = Package(
    name: "MoonbladeFuzz",
    dependencies: [
        .package(name: "Moonblade", path: ".."),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    ],
    targets: [
        // Reading structured choices out of the fuzzer's bytes, and failing loudly.
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"]),
        // libFuzzer's driver, declared for Swift.
        .target(name: "FuzzDriver"),
        // The strict JSON reader against Foundation's JSONSerialization.
        harness("FuzzJSON", dependencies: [.product(name: "MoonbladeHost", package: "Moonblade")]),
        // LuaEncoder/LuaDecoder on random Lua values and random Codable values.
        harness(
            "FuzzCoding",
            dependencies: [
                .product(name: "MoonbladeLua", package: "Moonblade"), .product(name: "MoonbladeHost", package: "Moonblade"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
            ]),
        // Lua updaters on drafts against the same program on a plain copy, through PluginHost.
        harness(
            "FuzzDrafts", dependencies: [.product(name: "MoonbladeHost", package: "Moonblade")],
            exclude: ["Plugin"]),
    ],
    swiftLanguageModes: [.v6]
)

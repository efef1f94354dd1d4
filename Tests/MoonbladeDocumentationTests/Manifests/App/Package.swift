// swift-tools-version: 6.1
// swift-format-ignore-file
// Formatted as README.md shows it (a test checks they match).
// The manifest of an app that embeds Moonblade, as README.md shows it; `swift package dump-package`
// reads it in a test (it is not built: the target excludes this folder).
import PackageDescription

let package = Package(
    name: "App",
    // snippet: readme-manifest
    dependencies: [
        // .package(url: "<where you cloned Moonblade from>", from: "0.2.0"), or a local checkout:
        .package(path: "../moonblade"),
    ],
    targets: [
        .executableTarget(name: "App", dependencies: [.product(name: "MoonbladeHost", package: "moonblade")]),
        .testTarget(name: "AppTests", dependencies: ["App", .product(name: "MoonbladeTesting", package: "moonblade")]),
    ]
    // end snippet
)

// swift-tools-version: 6.1
// The manifest lines "Embedding in a Swift App" shows; `swift package dump-package` reads it in a test
// (it is not built: the target excludes this folder).
import PackageDescription

let package = Package(
    name: "App",
    // snippet: embedding-manifest
    dependencies: [.package(path: "../moonblade")],
    targets: [
        .executableTarget(name: "App", dependencies: [.product(name: "MoonbladeHost", package: "moonblade")]),
        .testTarget(name: "AppTests", dependencies: ["App", .product(name: "MoonbladeTesting", package: "moonblade")]),
    ]
    // end snippet
)

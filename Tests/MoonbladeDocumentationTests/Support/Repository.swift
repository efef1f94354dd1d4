import Foundation

/// The repository's root folder, found from this file's place.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The documents a reader meets: the top-level guides, the examples' READMEs and every DocC article.
func documents() throws -> [URL] {
    let topLevel = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "BENCHMARKS.md", "FUZZING.md"]
        .map { repositoryRoot.appendingPathComponent($0) }
        .filter { FileManager.default.fileExists(atPath: $0.path) }
    let nested = try files(under: ["Sources", "Examples"]) { url in
        url.pathExtension == "md" && (url.path.contains(".docc/") || url.lastPathComponent == "README.md")
    }
    return topLevel + nested
}

/// The Swift files that can hold a snippet region: those under `Tests/` and `Examples/`, which targets
/// of the package build (a manifest's region is checked by `swift package dump-package` instead).
func snippetSources() throws -> [URL] {
    try files(under: ["Tests", "Examples"]) { $0.pathExtension == "swift" }
}

/// The path of `url` from the repository's root, as a message names it.
func relativePath(_ url: URL) -> String {
    String(url.standardizedFileURL.path.dropFirst(repositoryRoot.standardizedFileURL.path.count + 1))
}

private func files(under folders: [String], where keep: (URL) -> Bool) throws -> [URL] {
    var found: [URL] = []
    for folder in folders {
        let root = repositoryRoot.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
        for case let url as URL in walker where keep(url) {
            found.append(url)
        }
    }
    return found.sorted { $0.path < $1.path }
}

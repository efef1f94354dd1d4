import Foundation

/// Where the benchmarks' Lua files live, found from this source file so any working directory works.
public enum BenchmarkFiles {
    /// The `Benchmarks/` package folder.
    public static let packageDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Workloads/
        .deletingLastPathComponent()

    /// The folder of the benchmark plugin `name` (`Benchmarks/Plugins/<name>`).
    public static func plugin(_ name: String) -> String {
        packageDirectory.appendingPathComponent("Plugins/\(name)").path
    }

    /// The text of the Lua file `Benchmarks/Lua/<name>`.
    public static func luaSource(_ name: String) throws -> String {
        try String(contentsOf: packageDirectory.appendingPathComponent("Lua/\(name)"), encoding: .utf8)
    }
}

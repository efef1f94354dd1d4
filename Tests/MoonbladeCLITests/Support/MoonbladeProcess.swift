import Foundation
import MoonbladeHost
@_exported import MoonbladeTestSupport
import Testing

/// What a run of the built `moonblade` executable did.
struct Outcome {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output read as JSON.
    func json() throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(stdout.utf8))
    }
}

/// Runs the `moonblade` executable SwiftPM built next to the test bundle.
enum MoonbladeProcess {
    /// The executable: `MOONBLADE_EXECUTABLE` if set, else `moonblade` in the test bundle's directory
    /// (the test target depends on the executable target, so SwiftPM builds it there).
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["MOONBLADE_EXECUTABLE"] {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("moonblade")
    }()

    /// Runs `moonblade arguments...` in `directory` with `input` on standard input (none: end of file).
    static func run(_ arguments: [String], input: String = "", in directory: URL) async throws -> Outcome {
        try await run(arguments, inputBytes: Data(input.utf8), in: directory)
    }

    /// Runs `moonblade arguments...` in `directory` with the bytes `input` (UTF-8 or not) on standard input;
    /// `executable` is another copy of it.
    static func run(
        _ arguments: [String], inputBytes input: Data, in directory: URL, executable: URL = executable
    ) async throws -> Outcome {
        let output = try OutputFiles(in: directory)
        let stdin = output.io.appendingPathComponent("stdin")
        try input.write(to: stdin)
        let process = try launch(
            arguments, standardInput: FileHandle(forReadingFrom: stdin), output: output, in: directory, executable: executable)
        await waitForExit(process, arguments: arguments)
        return try output.outcome(status: process.terminationStatus)
    }

    /// Starts `moonblade arguments...` in `directory`, its output going to `output`'s files.
    static func launch(
        _ arguments: [String], standardInput: Any, output: OutputFiles, in directory: URL, executable: URL = executable
    ) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = standardInput
        process.standardOutput = try FileHandle(forWritingTo: output.stdout)
        process.standardError = try FileHandle(forWritingTo: output.stderr)
        try process.run()
        return process
    }

    /// Waits for `process` to end, terminating it (and recording an issue) if it runs for two minutes.
    ///
    /// It sleeps between checks rather than blocking: a blocked thread is one less for the concurrency
    /// pool that every other test runs on.
    static func waitForExit(_ process: Process, arguments: [String]) async {
        // A guard against a hung run, not a measurement: the runs here take well under a second.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                Issue.record("moonblade \(arguments.joined(separator: " ")) did not finish")
                break
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
    }
}

/// Where a run's standard output and error go: files rather than pipes, so a chatty process can never
/// block on a full pipe. The files are removed with this value.
final class OutputFiles {
    let io: URL
    var stdout: URL { io.appendingPathComponent("stdout") }
    var stderr: URL { io.appendingPathComponent("stderr") }

    init(in directory: URL) throws {
        io = directory.appendingPathComponent(".io-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: io, withIntermediateDirectories: true)
        for file in [stdout, stderr] { try Data().write(to: file) }
    }

    deinit {
        try? FileManager.default.removeItem(at: io)
    }

    /// What has been written so far.
    func read() throws -> (stdout: String, stderr: String) {
        (try String(contentsOf: stdout, encoding: .utf8), try String(contentsOf: stderr, encoding: .utf8))
    }

    func outcome(status: Int32) throws -> Outcome {
        let (stdout, stderr) = try read()
        return Outcome(status: status, stdout: stdout, stderr: stderr)
    }
}

/// A fresh directory for one test: the working directory of the runs, with plugins and files in it.
final class Workspace: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "moonblade-cli-\(UUID().uuidString)")

    init() {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `<name>/plugin.lua` and returns the folder's path.
    @discardableResult
    func plugin(_ name: String, _ source: String) throws -> String {
        try file("\(name)/plugin.lua", source)
        return url.appendingPathComponent(name).path
    }

    /// Writes `text` to the file at `path` (relative to the workspace) and returns its full path.
    @discardableResult
    func file(_ path: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)
    }

    func contents(of path: String = ".") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(path).path).sorted()
    }

    func run(_ arguments: String..., input: String = "") async throws -> Outcome {
        try await run(arguments, input: input)
    }

    func run(_ arguments: [String], input: String = "") async throws -> Outcome {
        try await MoonbladeProcess.run(arguments, input: input, in: url)
    }

    func run(_ arguments: [String], inputBytes: Data) async throws -> Outcome {
        try await MoonbladeProcess.run(arguments, inputBytes: inputBytes, in: url)
    }

    /// Writes `bytes` to the file at `path` (relative to the workspace) and returns its full path.
    @discardableResult
    func file(_ path: String, bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(path)
        try Data(bytes).write(to: file)
        return file.path
    }
}

/// A plugin whose updaters fail at known lines: `tally.fail` raises at line 5.
let tallyPlugin = """
    return {
      name = "tally",
      updaters = {
        add = function(state, p) state.total = (state.total or 0) + (p and p.by or 1) end,
        fail = function(state) error("tally refuses") end,
      },
      side_effects = {
        report = function(ctx) return { total = ctx.state().total } end,
      },
    }
    """

/// A plugin `step` whose `step.add` adds `p.by` times `factor` to `state.total`: a later version with
/// another factor shows which code ran. From version 2 on it has a `migrate` recording the old version.
func stepPlugin(version: Int, factor: Int) -> String {
    """
    return {
      name = "step", version = \(version),
      updaters = {
        add = function(state, p) state.total = (state.total or 0) + p.by * \(factor) end,
      },
      migrate = \(version > 1 ? "function(state, from) state.migrated_from = from end" : "nil"),
    }
    """
}

/// A `plugin.lua` for `step` that does not compile: a syntax error at line 3.
let brokenStepPlugin = """
    return {
      name = "step",
      updaters = { add = function(state) end end },
    }
    """

/// The line reporting a reload of ``brokenStepPlugin``.
let brokenStepReloadError =
    "error: reload of step failed: step/plugin.lua:3: '}' expected near 'end' (the earlier version keeps running)"

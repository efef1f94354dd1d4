import Foundation
import MoonbladeHost
import Testing

/// Files and folders a careless user names: folders where files belong, odd names, links, two runs
/// saving to one file, an output nobody reads any more. Each fault is one clear line with the documented exit code, and no file is
/// left half-written.
@Suite("moonblade run: hostile files and folders")
struct HostileFileTests {
    let workspace = Workspace()

    @Test(arguments: [
        ("a folder", "error: cannot read a folder: it is a folder\n"),
        ("missing.json", "error: cannot read missing.json: no such file\n"),
        ("state.json/inside", "error: cannot read state.json/inside: Not a directory\n"),
        // A named pipe nobody writes to: refused at once rather than waited on.
        ("pipe", "error: cannot read pipe: it is not a regular file (a FIFO)\n"),
    ])
    func aStateFileThatCannotBeReadExits4SayingWhy(_ path: String, _ message: String) async throws {
        try workspace.file("a folder/x", "{}")
        try workspace.file("state.json", "{}")
        _ = try UnwrittenFIFO(at: workspace.url.appendingPathComponent("pipe").path)
        let outcome = try await workspace.run("run", shippedPlugin("counter"), "--state", path)
        #expect(outcome.status == 4)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == message)
    }

    @Test func pluginFoldersAndFilesWithSpacesUnicodeAndLinksWork() async throws {
        let folder = try workspace.plugin("plug ins/çöunter 🧮", tallyPlugin)
        try FileManager.default.createSymbolicLink(
            atPath: workspace.url.appendingPathComponent("linked").path, withDestinationPath: folder)
        try workspace.file("états/été 1.json", #"{"total": 1.5e0}"#)
        try FileManager.default.createSymbolicLink(
            atPath: workspace.url.appendingPathComponent("état.json").path,
            withDestinationPath: workspace.url.appendingPathComponent("états/été 1.json").path)
        for plugin in [folder, "linked", "plug ins"] {
            let outcome = try await workspace.run("run", plugin, "--state", "état.json", "--save", "états/sortie ✓.json")
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try workspace.read("états/sortie ✓.json") == "{\n  \"total\": 1.5\n}\n")
        }
        // Saving through a link writes its target, and the link stays.
        let outcome = try await workspace.run(
            "run", "linked", "--state", "état.json", "--dispatch", "tally.add", "--save", "état.json")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try workspace.read("états/été 1.json") == "{\n  \"total\": 2.5\n}\n")
        let link = try FileManager.default.destinationOfSymbolicLink(
            atPath: workspace.url.appendingPathComponent("état.json").path)
        #expect(link.hasSuffix("états/été 1.json"))
        #expect(try workspace.contents(of: "états") == ["sortie ✓.json", "été 1.json"])
    }

    @Test func twoRunsSavingToOneFileLeaveOneWholeStateAndNoTemporaryFile() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        async let first = workspace.run(
            ["run", tally] + Array(repeating: ["--dispatch", "tally.add"], count: 30).flatMap { $0 } + ["--save", "out.json"])
        async let second = workspace.run(["run", tally, "--dispatch", "tally.add", #"{"by": 7}"#, "--save", "out.json"])
        let outcomes = try await [first, second]
        #expect(outcomes.map(\.status) == [0, 0], "\(outcomes.map(\.stderr))")
        let saved = try workspace.read("out.json")
        #expect(["{\n  \"total\": 30\n}\n", "{\n  \"total\": 7\n}\n"].contains(saved), "\(saved)")
        #expect(try workspace.contents().filter { $0.hasPrefix(".out.json") } == [])
    }

    @Test func aClosedStandardOutputDoesNotEndAWatchingRunBeforeItSaves() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let output = try OutputFiles(in: workspace.url)
        let input = output.io.appendingPathComponent("stdin")
        try Data(String(repeating: "tally.add\n", count: 200).utf8).write(to: input)
        // The reader of standard output is gone before the run starts (`… | head -0`).
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let process = Process()
        process.executableURL = MoonbladeProcess.executable
        process.arguments = ["run", tally, "--watch", "--print-state", "--save", "saved.json"]
        process.currentDirectoryURL = workspace.url
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = pipe
        process.standardError = try FileHandle(forWritingTo: output.stderr)
        try process.run()
        try pipe.fileHandleForWriting.close()
        await MoonbladeProcess.waitForExit(process, arguments: process.arguments ?? [])
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
        #expect(try workspace.read("saved.json") == "{\n  \"total\": 200\n}\n")
        #expect(
            try output.read().stderr
                == "error: standard output is closed (Broken pipe); results are no longer printed\n")
    }
}

import ArgumentParser
import Foundation
import Logging
import MoonbladeHost
import MoonbladeTesting

/// `moonblade test`: runs the Lua specs of plugins and reports every case.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the Lua specs of plugins (<plugin>/spec/*_spec.lua) and report every case.",
        discussion: """
            Each case runs in a fresh store holding its plugin. Prints `ok   <plugin>: <case>` or \
            `FAIL <plugin>: <case> — <file>:<line>: <message>` for each case, then a summary. A folder \
            without a plugin.lua stands for the plugin folders in it (moonblade test Plugins), as in \
            every command; a folder that does not exist, a folder with no plugin, and a plugin with no \
            spec case, however it was named, are errors. \
            --junit also writes the results as JUnit XML, atomically, for CI systems. --filter, --tags \
            and --exclude-tags choose cases as busted does (tags are the #words in describe and it \
            names); --watch runs the specs again whenever a Lua file of the plugins or their specs \
            changes, until interrupted. --side-effect-time-limit bounds how long a case waits for a \
            side effect that never ends.

            \(ExitStatus.help)
            """
    )

    @Argument(help: "Plugin folders, each with a plugin.lua and a spec folder; or a folder of plugin folders.")
    var plugins: [String]

    @Option(help: ArgumentHelp("Also write the results as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Run only the cases whose full name matches this regular expression.", valueName: "pattern"))
    var filter: String?

    @Option(
        parsing: .singleValue,
        help: ArgumentHelp("Run only the cases with one of these tags (#slow or slow); repeatable, or comma-separated.", valueName: "tag"))
    var tags: [String] = []

    @Option(
        parsing: .singleValue,
        help: ArgumentHelp("Leave out the cases with any of these tags; repeatable, or comma-separated.", valueName: "tag"))
    var excludeTags: [String] = []

    @Flag(help: "Run the specs again on every change to a Lua file of the plugins or their specs, until interrupted.")
    var watch = false

    @Option(
        help: ArgumentHelp(
            "The longest a side effect a case dispatches may take, awaits included, in seconds (default 30); past it the case fails.",
            valueName: "seconds"))
    var sideEffectTimeLimit: Double?

    @Option(
        help: """
            The lowest level of the spec stores' own log entries shown on standard error (trace … \
            critical); the report already has every failure.
            """)
    var logLevel: Logger.Level = .critical

    func validate() throws {
        if let sideEffectTimeLimit, !(sideEffectTimeLimit > 0 && sideEffectTimeLimit.isFinite) {
            throw ValidationError("--side-effect-time-limit must be a positive number of seconds, not \(sideEffectTimeLimit)")
        }
    }

    func run() async throws {
        // The runner's stores log through swift-log's global handler: a side effect that an observer
        // started and the end of its case cut short is logged as an error, noise next to the report.
        LoggingSystem.bootstrap { [logLevel] label in ConsoleLogHandler(label: label, shownLevel: logLevel) }
        let selection: LuaSpecSelection
        do {
            selection = try LuaSpecSelection(filter: filter, tags: Self.split(tags), excludedTags: Self.split(excludeTags))
        } catch {
            throw ValidationError(error.message)
        }
        let folders = try PluginFolders.resolve(plugins)
        guard watch else {
            try await runOnce(selection, folders: folders)
            return
        }
        let changes = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let specFolders = folders.map { "\($0)/spec" }.filter(FileReader.isFolder)
        let watcher = PluginWatcher(directories: folders + specFolders) { _ in changes.continuation.yield() }
        defer { watcher.stop() }
        while true {
            do {
                try await runOnce(selection, folders: folders)
            } catch let error as ExitCode {
                Console.printError("(exit status \(error.rawValue) without --watch)")
            }
            Console.printError("watching for changes (Ctrl-C to stop)")
            for await _ in changes.stream { break }
        }
    }

    /// Runs the selected cases of the plugins in `folders` once, prints the report, and throws the exit
    /// status it calls for.
    private func runOnce(_ selection: LuaSpecSelection, folders: [String]) async throws {
        var runner = LuaSpecRunner()
        if let sideEffectTimeLimit { runner.sideEffectTimeLimit = .seconds(sideEffectTimeLimit) }
        var outcomes: [SpecOutcome] = []
        var foldersWithoutSpecs: [String] = []
        for folder in folders {
            let cases = LuaSpecRunner.discover(plugin: folder)
            if cases.isEmpty {
                foldersWithoutSpecs.append(folder)
            }
            for specCase in cases where selection.includes(specCase) {
                let outcome = SpecOutcome(specCase: specCase, result: await runner.run(specCase))
                Console.print(outcome.report)
                outcomes.append(outcome)
            }
        }
        let failed = outcomes.count { !$0.passed }
        let pending = outcomes.count(where: \.isPending)
        Console.print("\(outcomes.count - failed - pending) passed, \(failed) failed" + (pending > 0 ? ", \(pending) pending" : ""))
        for folder in foldersWithoutSpecs {
            Console.printError("error: no spec case in \(folder) (expected spec/*_spec.lua with an `it`)")
        }
        if let junit {
            do {
                try AtomicFile.write(Data(JUnitReport(outcomes).xml.utf8), to: URL(fileURLWithPath: junit))
            } catch {
                Console.report(error)
                throw ExitStatus.fileFailed.code
            }
        }
        if failed > 0 { throw ExitStatus.specFailed.code }
        if !foldersWithoutSpecs.isEmpty { throw ExitStatus.noSpecs.code }
    }

    /// `a,b` and `c` as `a`, `b`, `c`: tags may be repeated or comma-separated, as busted takes them.
    private static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

}

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
            --junit also writes the results as JUnit XML, atomically, for CI systems.

            \(ExitStatus.help)
            """
    )

    @Argument(help: "Plugin folders, each with a plugin.lua and a spec folder; or a folder of plugin folders.")
    var plugins: [String]

    @Option(help: ArgumentHelp("Also write the results as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Option(
        help: """
            The lowest level of the spec stores' own log entries shown on standard error (trace … \
            critical); the report already has every failure.
            """)
    var logLevel: Logger.Level = .critical

    func run() async throws {
        // The runner's stores log through swift-log's global handler: a side effect that an observer
        // started and the end of its case cut short is logged as an error, noise next to the report.
        LoggingSystem.bootstrap { [logLevel] label in ConsoleLogHandler(label: label, shownLevel: logLevel) }
        let folders = try PluginFolders.resolve(plugins)
        let runner = LuaSpecRunner()
        var outcomes: [SpecOutcome] = []
        var foldersWithoutSpecs: [String] = []
        for folder in folders {
            let cases = LuaSpecRunner.discover(plugin: folder)
            if cases.isEmpty {
                foldersWithoutSpecs.append(folder)
            }
            for specCase in cases {
                let outcome = SpecOutcome(specCase: specCase, result: await runner.run(specCase))
                Console.print(outcome.report)
                outcomes.append(outcome)
            }
        }
        let failed = outcomes.count { !$0.passed }
        Console.print("\(outcomes.count - failed) passed, \(failed) failed")
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
}

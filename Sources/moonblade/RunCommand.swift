import ArgumentParser
import MoonbladeHost

/// `moonblade run`: a store on the given plugins, a few dispatches, the final state.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Load plugins, apply dispatches in order and print the final state as JSON.",
        discussion: """
            The state starts as the JSON in --state, or {}. Each --dispatch names an item \
            (plugin.item) and may give a JSON payload: --dispatch counter.increment '{"by": 2}'. \
            Put the plugin folders before the options: the words after --dispatch up to the \
            next option are item names and payloads. The first dispatch that fails stops the \
            run: its error goes to standard error and nothing is printed or saved.

            With --watch, after the --dispatch items, one dispatch per line is read from standard \
            input (`NAME` or `NAME JSON`) until end of file; a failing line is reported and the \
            run goes on. A side effect's result, if any, is printed as one line of JSON. Meanwhile \
            a plugin reloads whenever its folder's Lua files change: `reloaded cart (version 2)` \
            on standard error, or the error with its place while the earlier version keeps running. \
            The state survives a reload.

            With --trace, each Lua dispatch and reload is printed on standard error as it ends, as a \
            tree of spans with durations: the Lua calls, the state mapping, each await of a Swift \
            dependency and the dispatches it made. With --metrics, a summary of the host's metrics \
            (dispatches by item and outcome, their durations, limit failures, reloads, the VM's \
            memory) is printed on standard error at the end.

            \(ExitStatus.help)
            """
    )

    @OptionGroup var host: HostOptions

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp("A JSON file with the initial state.", valueName: "file"))
    var stateFile: String?

    @Option(
        name: .customLong("dispatch"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "An item to dispatch and its optional JSON payload; repeatable.", valueName: "name [json]"))
    var dispatchArguments: [String] = []

    @Flag(help: "Print the final state even with --save; with --watch, also print the state after each line.")
    var printState = false

    @Option(
        help: ArgumentHelp(
            "Save the final state to this file (atomically) instead of printing it.", valueName: "file"))
    var save: String?

    @Flag(
        help: """
            Keep running, hot-reloading changed plugins and reading one dispatch per line from standard \
            input until end of file.
            """)
    var watch = false

    @Flag(help: "Print each dispatch's span tree with durations on standard error.")
    var trace = false

    @Flag(help: "Print a summary of the host's metrics on standard error at the end.")
    var metrics = false

    func validate() throws {
        _ = try requests()
    }

    /// The `--dispatch` requests, in order.
    private func requests() throws -> [DispatchRequest] {
        do {
            return try DispatchRequest.requests(from: dispatchArguments)
        } catch {
            throw ValidationError("--dispatch: \(error)")
        }
    }

    func run() async throws {
        let initialState = try stateFile.map(StateFile.read) ?? JSONValue()
        let summary = metrics ? SummaryMetrics() : nil
        defer {
            summary?.lines().forEach { Console.printError("metrics: \($0)") }
        }
        let session = try await host.session(
            initialState: initialState, tracer: trace ? TreeTracer() : nil, metrics: summary)
        for request in try requests() {
            do {
                try await session.dispatch(request)
            } catch {
                Console.report(error)
                throw ExitStatus.dispatchFailed.code
            }
        }
        if watch {
            let hotReload = HotReload(session.host)
            await watchInput(session)
            hotReload.stop()
        }
        if let save {
            try StateFile.save(session.state, to: save)
        }
        if save == nil || printState {
            Console.print(session.state.jsonString(pretty: true))
        }
    }

    /// Applies one dispatch per line of standard input, reporting failures and going on, until end of file.
    private func watchInput(_ session: PluginSession) async {
        for await line in Console.inputLines() where !line.allSatisfy(\.isWhitespace) {
            do {
                let result = try await session.dispatch(DispatchRequest(line: line))
                if let result {
                    Console.print(result.jsonString())
                }
                if printState {
                    Console.print(session.state.jsonString())
                }
            } catch {
                Console.report(error)
            }
        }
    }
}

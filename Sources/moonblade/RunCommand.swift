import ArgumentParser
import MoonbladeHost
import MoonbladeJournal

/// `moonblade run`: a store on the given plugins, a few dispatches, the final state.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Load plugins, apply dispatches in order and print the final state as JSON.",
        discussion: """
            The state starts as the JSON in --state, or {}. Each --dispatch names an item \
            (plugin.item) and may give a JSON payload: --dispatch counter.increment '{"by": 2}'. \
            The plugin folders go before or after the options (a folder after --dispatch or \
            --post items is a plugin folder, not a payload). The first dispatch that fails stops the \
            run: its error goes to standard error and nothing is printed or saved. A side effect's \
            result, if any, is printed as one line of JSON as it returns. Each --post \
            then posts a notification (named like an item, app.resumed) with an optional JSON payload, firing \
            the plugins' on_notification rules, and waits until what they set off is done.

            With --watch, after the --dispatch items, one dispatch per line is read from standard \
            input (`NAME` or `NAME JSON`) until end of file; a failing line is reported and the \
            run goes on. A side effect's result, if any, is printed as one line of JSON. Meanwhile \
            a plugin reloads whenever its folder's Lua files change: `reloaded cart (version 2)` \
            on standard error, or the error with its place while the earlier version keeps running. \
            The state survives a reload. Ctrl-C (SIGINT) or SIGTERM stops the run in order: the \
            dispatch in flight gets 5 seconds to settle, then its plugin code is interrupted (it fails \
            at its line, reported) or, if it is waiting on Swift work, abandoned 5 seconds later (a \
            --dispatch item in flight finishes and the rest are not run), the state is saved (--save) \
            or printed, and the run exits 130 or 143; a second signal ends it at once.

            A failure that nobody awaits reaches only the log (a failing observer rule or what it \
            dispatched, a failing on_start item, a cascade stopped for running away); the run then \
            exits 6 once it has printed or saved the state, unless --allow-logged-failures.

            With --watch --devtools [PORT], the run is served with the devtools page on PORT (none or 0: \
            a free one): moonblade hands over to moonblade-serve, as `moonblade serve` does, which reads \
            the same lines from standard input, reloads plugins as they change, prints a side effect's \
            result, keeps the journal, and at end of input (or SIGINT, SIGTERM) stops, saving (--save) or \
            printing the state. The page's address, with the token that lets it dispatch, is logged as \
            it starts: `devtools at http://127.0.0.1:PORT/devtools#token=…`. Build moonblade-serve to \
            use it (`swift build --product moonblade-serve`); --trace, --metrics, --dispatch, --post, \
            --print-state, --strict-journal and --snapshot-every are not for such a run (the page \
            shows each dispatch's spans).

            With --journal, every dispatch is recorded in that file and a later run with the same \
            journal starts from the state it recorded (its last snapshot plus the changes after it; \
            no plugin code runs to get there).

            With --trace, each Lua dispatch and reload is printed on standard error once it and \
            everything it set off has ended (the dispatches it made, and those its observer rules \
            made), as a tree of spans, each line with its start time (UTC), the payload cut short and \
            the duration: the Lua calls, the state mapping, each await of a Swift dependency and the \
            dispatches it made. With --trace json, each finished dispatch is one line of JSON \
            instead (item, kind, plugin, version, payload, start, duration_ms, outcome, error, parent). With --metrics, a summary of the host's metrics \
            (dispatches by item and outcome, their durations, limit failures, reloads, the VM's \
            memory) is printed on standard error at the end.

            \(ExitStatus.help)
            """
    )

    @OptionGroup var host: HostOptions

    @OptionGroup var journalOptions: JournalOptions

    @Option(
        name: .customLong("state"),
        help: ArgumentHelp("A JSON file with the initial state.", valueName: "file"))
    var stateFile: String?

    @Option(
        name: .customLong("dispatch"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "An item to dispatch and its optional JSON payload; repeatable.", valueName: "name [json]"))
    var dispatchArguments: [String] = []

    @Option(
        name: .customLong("post"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "A notification to post after the dispatches, and its optional JSON payload; repeatable.",
            valueName: "name [json]"))
    var postArguments: [String] = []

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

    @Option(
        help: ArgumentHelp(
            "Print each dispatch's span tree on standard error once it has ended, chained dispatches included (--trace); with json, one JSON object per finished dispatch.",
            valueName: "tree|json"))
    var trace: TraceFormat?

    @Flag(help: "Print a summary of the host's metrics on standard error at the end.")
    var metrics = false

    @Option(
        help: ArgumentHelp(
            "With --watch: serve the devtools page on this port (none or 0: a free one); runs moonblade-serve.",
            valueName: "port"))
    var devtools: Int?

    /// `--devtools` alone, or followed by a port: see ``OptionalValueOption``.
    static let devtoolsOption = OptionalValueOption(name: "--devtools", defaultValue: "0") { Int($0) != nil }

    mutating func validate() throws {
        // The last of these options took every word after it: plugin folders put last among them.
        var (posted, dispatched) = (postArguments, dispatchArguments)
        host.takeFolders(trailing: &posted)
        host.takeFolders(trailing: &dispatched)
        (postArguments, dispatchArguments) = (posted, dispatched)
        try host.requireFolders()
        _ = try requests()
        _ = try posts()
        if devtools != nil { try validateDevtools() }
    }

    /// Refuses what a run served with devtools does not do.
    private func validateDevtools() throws {
        guard watch else { throw ValidationError("--devtools needs --watch: the page watches a running host") }
        let refused: [(String, Bool)] = [
            ("--trace", trace != nil), ("--metrics", metrics), ("--dispatch", !dispatchArguments.isEmpty),
            ("--post", !postArguments.isEmpty), ("--print-state", printState),
            ("--strict-journal", journalOptions.strictJournal), ("--snapshot-every", journalOptions.snapshotEvery != 1000),
            ("--allow-logged-failures", allowLoggedFailures),
        ]
        if let (option, _) = refused.first(where: \.1) {
            throw ValidationError("\(option) does not go with --devtools (the page shows what it would)")
        }
    }

    /// The server's words for this run: the same plugins, state, journal and data, reading dispatches
    /// from standard input, with the devtools page on `port`.
    func serverArguments(port: Int) -> [String] {
        var words =
            host.plugins + [
                "--port", String(port), "--devtools", "--stdin", "--data-dir", host.dataDir, "--log-level", host.logLevel.rawValue,
            ]
        if let stateFile { words += ["--state", stateFile] }
        if let save { words += ["--save", save] }
        if let journal = journalOptions.journal { words += ["--journal", journal] }
        return words
    }

    /// The `--post` notifications, in order (a name and a payload, read like a dispatch).
    private func posts() throws -> [DispatchRequest] {
        do {
            return try DispatchRequest.requests(from: postArguments)
        } catch {
            throw ValidationError("--post: \(error)")
        }
    }

    /// The `--dispatch` requests, in order.
    private func requests() throws -> [DispatchRequest] {
        do {
            return try DispatchRequest.requests(from: dispatchArguments)
        } catch {
            throw ValidationError("--dispatch: \(error)")
        }
    }

    @Flag(
        help: """
            Exit 0 even when a failure reached only the log (a failing observer rule or what it dispatched, \
            a failing on_start item, a stopped cascade); without it the run exits 6.
            """)
    var allowLoggedFailures = false

    func run() async throws {
        if let devtools { try ServeCommand.handOver(serverArguments(port: devtools)) }
        // Caught from the start, so a stop during start-up waits for the watch loop to save.
        let stop = watch ? StopSignals() : nil
        let journal = try journalOptions.open()
        defer { JournalFailure.close(journal) }
        if let journal, stateFile != nil, try JournalFailure.guarding({ () throws(JournalError) in try journal.state() }) != nil {
            throw ValidationError("--state: the journal \(journal.file) already holds a state to start from")
        }
        let initialState = try stateFile.map(StateFile.read)
        try save.map(StateFile.checkSavable)
        let summary = metrics ? SummaryMetrics() : nil
        defer {
            summary?.lines().forEach { Console.printError("metrics: \($0)") }
        }
        let session = try await host.session(
            initialState: initialState, journal: journal, tracer: trace.map { TreeTracer(format: $0) }, metrics: summary)
        let requests = try requests()
        for (number, request) in requests.enumerated() {
            // A stop asked for during the --dispatch items ends them here: the one in flight has
            // finished, the rest are not started, and the state is saved as the watch loop would.
            if let stop, stop.received != nil {
                Console.printError("stopped: \(requests.count - number) --dispatch item(s) not run, from \(request.name)")
                break
            }
            do {
                // A side effect's result is one line of JSON, as in --watch, before the final state.
                if let result = try await session.dispatch(request) { Console.print(result.jsonString()) }
            } catch {
                Console.report(error)
                throw ExitStatus.dispatchFailed.code
            }
        }
        for notification in try posts() where stop?.received == nil {
            await session.post(notification)
        }
        if let stop {
            let hotReload = HotReload(session.host)
            await watchInput(session, stop: stop)
            hotReload.stop()
        }
        if let save {
            try StateFile.save(session.state, to: save)
        }
        if save == nil || printState {
            Console.print(session.state.jsonString(pretty: true))
        }
        if let stop, let code = stop.exitCode {
            throw ExitCode(code)
        }
        let logged = LoggedFailures.shared.total
        if logged > 0, !allowLoggedFailures {
            Console.printError(
                "error: \(logged) failure\(logged == 1 ? "" : "s") reached only the log (above); "
                    + "--allow-logged-failures exits 0 for them")
            throw ExitStatus.loggedFailure.code
        }
    }

    /// Applies one dispatch per line of standard input, reporting failures and going on, until end of
    /// file or a stop signal.
    private func watchInput(_ session: PluginSession, stop: StopSignals) async {
        let (lines, continuation) = AsyncStream<String>.makeStream()
        let reading = Task {
            for await line in Console.inputLines() { continuation.yield(line) }
            continuation.finish()
        }
        let stopping = Task {
            if await stop.wait() != nil { continuation.finish() }
        }
        defer {
            reading.cancel()
            stopping.cancel()
        }
        for await line in lines where !line.allSatisfy(\.isWhitespace) {
            if stop.received != nil { return }
            await apply(line, session, stop: stop)
        }
    }

    /// Dispatches one line and reports its result or error; if a stop comes meanwhile, the dispatch
    /// has ``StopSignals/grace`` to settle. Then its plugin code is interrupted, so that it fails at
    /// its line (reported) and gives its core back; work that still does not end (a Swift dependency
    /// that never answers) is abandoned. Its updaters are applied or not, each whole, so the state
    /// saved is always one the store had.
    private func apply(_ line: String, _ session: PluginSession, stop: StopSignals) async {
        let dispatch = Task { try await session.dispatch(DispatchRequest(line: line)) }
        if await !stop.settles(dispatch) {
            session.host.interrupt()
            guard await stop.finishes(dispatch, within: StopSignals.grace) else {
                Console.printError("error: \(line): abandoned, still running \(StopSignals.grace) after the stop")
                return
            }
        }
        switch await dispatch.result {
        case .success(let result):
            if let result {
                Console.print(result.jsonString())
            }
            if printState {
                Console.print(session.state.jsonString())
            }
        case .failure(let error as DispatchRequestError):
            Console.report(error.naming(session.itemNames))
        case .failure(let error):
            Console.report(error)
        }
    }
}

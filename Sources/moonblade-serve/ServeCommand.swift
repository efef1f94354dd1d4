import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MoonbladeHost
import MoonbladeHummingbird
import MoonbladeJournal
import NIOCore

/// `moonblade serve` (which `moonblade` runs from next to itself): a plugin host behind the HTTP
/// routes of ``HostRoutes``, with hot reload, the journal, and a saved state on SIGTERM/SIGINT.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moonblade serve",
        abstract: "Serve plugins over HTTP: dispatch, state, plugins, reload and a live event stream.",
        discussion: """
            Routes: POST /dispatch/{item} (JSON payload), GET /state[?pointer=/a/0], GET /plugins, \
            POST /plugins/{name}/reload, and the WebSocket event stream GET /events. Errors are \
            application/problem+json naming the item, the plugin and file:line.

            The server binds to 127.0.0.1 unless --host says otherwise, and refuses to start on any \
            other address without --token (or MOONBLADE_TOKEN): with a token, dispatch, reload and the \
            event stream need Authorization: Bearer <token>. Plugins reload when their files change. \
            SIGTERM or SIGINT stops the server in order: requests in flight finish, the state is saved \
            (--save) and the journal closed. The address it listens on is logged as it starts \
            (`listening on http://127.0.0.1:PORT`, useful with --port 0).

            With --devtools, the devtools page is served too (a live dispatch log with states and \
            diffs, reloads, a dispatch form and, with --journal, time travel): its address is logged \
            as `devtools at http://127.0.0.1:PORT/devtools#token=TOKEN`. Without --token, a random \
            token is made for the run, so that only who has the address (and clients given the \
            token) can change the state.

            With --stdin, standard input is read too, one dispatch per line (NAME or NAME JSON, as \
            `moonblade run --watch` reads them; a side effect's result printed as a line of JSON, a \
            failing line reported and the next one read); at its end the server stops as on SIGTERM and, \
            without --save, prints the state as JSON.
            """)

    @Argument(help: "Plugin folders, each with a plugin.lua; or a folder of plugin folders.")
    var plugins: [String]

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(name: .customLong("state"), help: ArgumentHelp("A JSON file with the initial state.", valueName: "file"))
    var stateFile: String?

    @Option(help: ArgumentHelp("Save the state to this file (atomically) when the server stops.", valueName: "file"))
    var save: String?

    @Option(
        help: ArgumentHelp(
            "Record every dispatch in this journal (an SQLite file) and start from its latest state.", valueName: "file"))
    var journal: String?

    @Option(help: ArgumentHelp("The bearer token state-changing routes and the stream need (default: $MOONBLADE_TOKEN).", valueName: "token"))
    var token: String?

    @Flag(
        help: ArgumentHelp(
            "Serve the devtools page at /devtools; without --token a random one is made. The page's address, token included, is logged at start."))
    var devtools = false

    @Flag(
        help: ArgumentHelp(
            "Also dispatch one line of standard input at a time (NAME or NAME JSON), and stop at its end, printing the state unless --save (what `moonblade run --watch --devtools` runs)."
        ))
    var stdin = false

    @Option(help: ArgumentHelp("The largest request body accepted, in bytes.", valueName: "bytes"))
    var maxBody = 1 << 20

    @Option(help: ArgumentHelp("The directory the storage dependency keeps its JSON files in.", valueName: "dir"))
    var dataDir = ".moonblade"

    @Option(help: ArgumentHelp("The lowest level of log entries shown on standard error.", valueName: "level"))
    var logLevel: Logger.Level = .info

    /// The token from `--token`, else from the environment.
    private var bearerToken: String? {
        token ?? ProcessInfo.processInfo.environment["MOONBLADE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is not a port number") }
        guard maxBody > 0 else { throw ValidationError("--max-body must be at least 1") }
        if bearerToken == nil, !Self.isLoopback(host) {
            throw ValidationError(
                "--host \(host) is not a loopback address: give --token (or MOONBLADE_TOKEN) so that strangers cannot change the state")
        }
        if journal != nil, stateFile != nil {
            throw ValidationError("--state and --journal: the journal's latest state is where the server starts")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "moonblade.serve")
        logger.logLevel = logLevel
        let served = try ServedHost(
            plugins: try PluginFolder.resolve(plugins), stateFile: stateFile, journalPath: journal, dataDirectory: dataDir,
            logger: logger)
        let watcher = served.host.watchPlugins()
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(LogRequestsMiddleware(.debug))
        let token = bearerToken ?? (devtools ? Self.randomToken() : nil)
        let routes = HostRoutes(served.host, events: served.events, configuration: .init(token: token, maxBodySize: maxBody))
        routes.add(to: router.group())
        if devtools { DevtoolsRoutes(routes, journal: served.journal).add(to: router.group()) }
        let app = Application(
            router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname(host, port: port), serverName: "moonblade"),
            onServerRunning: { [host, logger, devtools, stdin, pluginHost = served.host] channel in
                let address = "http://\(host):\(channel.localAddress?.port ?? 0)"
                logger.notice("listening on \(address)")
                // The token goes in the fragment, which the browser never sends; the page then takes it out.
                if devtools { logger.notice("devtools at \(address)/devtools\(token.map { "#token=\($0)" } ?? "")") }
                if stdin {
                    Task {
                        await StandardInputDispatches.run(on: pluginHost)
                        // The end of input stops the server as SIGTERM does (its service group, running
                        // by now, catches it and lets requests in flight end).
                        kill(getpid(), SIGTERM)
                    }
                }
            },
            logger: logger)
        // Hummingbird's service group stops the server on SIGTERM and SIGINT once requests in flight end.
        try await app.runService()
        watcher.stop()
        try await served.stop(savingTo: save)
        logger.notice("stopped\(save.map { "; state saved to \($0)" } ?? "")")
        if stdin, save == nil { print(served.host.state.jsonString(pretty: true)) }
    }

    /// 32 random hexadecimal digits (128 bits, from the system's generator).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

import ArgumentParser
import Foundation

/// `moonblade serve`: runs `moonblade-serve`, the server built next to `moonblade`, in this process's
/// place (as git runs its `git-*` commands), so that only who serves builds Hummingbird.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve plugins over HTTP (runs moonblade-serve; `moonblade serve --help` for its options).",
        discussion: """
            moonblade serve PLUGINS… [--host 127.0.0.1] [--port 8080] [--state file] [--save file] \
            [--journal file] [--token token] [--max-body bytes] [--devtools]. The server is its own executable, \
            moonblade-serve, found next to moonblade: build it with `swift build --product moonblade-serve`.
            """)

    @Argument(parsing: .captureForPassthrough, help: "The server's arguments.")
    var arguments: [String] = []

    /// The server next to this executable.
    static var serverPath: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("moonblade-serve").path
    }

    func run() throws {
        try Self.handOver(arguments)
    }

    /// Runs `moonblade-serve` with `arguments` in this process's place; returns only by throwing.
    static func handOver(_ arguments: [String]) throws -> Never {
        let server = Self.serverPath
        guard FileManager.default.isExecutableFile(atPath: server) else {
            Console.printError(
                "error: moonblade needs \(server) to serve: build it with `swift build --product moonblade-serve`")
            throw ExitStatus.fileFailed.code
        }
        let argv = ([server] + arguments).map { strdup($0) } + [nil]
        execv(server, argv)
        Console.printError("error: cannot run \(server): \(String(cString: strerror(errno)))")
        throw ExitStatus.fileFailed.code
    }
}

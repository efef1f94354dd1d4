import Foundation
import MoonbladeHost
import MoonbladeHummingbird

/// `--stdin`: one dispatch per line of standard input, `NAME` or `NAME JSON`, as `moonblade run
/// --watch` reads them (which hands over to this server for its devtools): a side effect's result is
/// printed as one line of JSON, a failing line is reported on standard error and the next one read.
enum StandardInputDispatches {
    /// Reads and dispatches lines until end of input, each one done (with what it set off) before the next.
    static func run(on host: PluginHost<JSONValue>) async {
        for await line in StandardInputLines.lines(reporting: { printError("error: \($0)") })
        where !line.allSatisfy(\.isWhitespace) {
            do {
                let request = try DispatchRequest(line: line)
                let result = try await HostEvents.dispatchingFromCommandLine {
                    try await host.dispatchAndSettle(request.name, request.payload)
                }
                if let result {
                    print(result.jsonString())
                }
            } catch let error as DispatchRequestError {
                printError("error: \(error.naming(host.plugins.flatMap { $0.updaters + $0.sideEffects }.sorted()))")
            } catch {
                printError("error: \(error)")
            }
        }
    }

    private static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

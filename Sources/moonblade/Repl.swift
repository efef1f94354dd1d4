import Foundation
import MoonbladeHost

/// The read-eval-print loop of `moonblade repl`: one command per line, errors reported and survived.
struct Repl {
    let session: PluginSession

    /// A command line, understood.
    enum Command: Equatable {
        case dispatch(DispatchRequest)
        case state
        case reload
        case timeTravel(TimeTravelCommand)
        case help
        case quit
        case nothing
    }

    /// Reads the command in `line`: a command word, or an item name with an optional JSON payload.
    static func command(in line: String) throws(DispatchRequestError) -> Command {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        switch words.first {
        case nil: return .nothing
        case "state": return .state
        case "reload": return .reload
        case "history", "goto", "undo", "diff": return .timeTravel(try TimeTravelCommand(words))
        case "help", "?": return .help
        case "quit", "exit": return .quit
        case "dispatch":
            guard words.count == 2 else {
                throw DispatchRequestError(message: "dispatch needs an item name: dispatch NAME [JSON]")
            }
            return .dispatch(try DispatchRequest(line: words[1]))
        default: return .dispatch(try DispatchRequest(line: line))
        }
    }

    /// Runs commands from `lines` until `quit` or their end, printing `prompt` before each when given.
    func run(lines: AsyncStream<String>, prompt: String?) async {
        var iterator = lines.makeAsyncIterator()
        while true {
            if let prompt { Console.prompt(prompt) }
            guard let line = await iterator.next() else { return }
            do {
                switch try Self.command(in: line.trimmingCharacters(in: .whitespaces)) {
                case .dispatch(let request):
                    let result = try await session.dispatch(request)
                    Console.print(result.map { $0.jsonString() } ?? "ok")
                case .state:
                    Console.print(session.state.jsonString(pretty: true))
                case .reload:
                    await reloadPlugins()
                case .timeTravel(let command):
                    try await travel(command)
                case .help:
                    Console.print(help)
                case .quit:
                    return
                case .nothing:
                    continue
                }
            } catch {
                Console.report(error)
            }
        }
    }

    private var help: String {
        """
        commands:
          NAME [JSON]             dispatch an item with an optional JSON payload (prints its result, or ok)
          dispatch NAME [JSON]    the same
          state                   print the state
          reload                  reload every plugin from its folder (the state stays)
          history [COUNT]         the last dispatches (20), numbered, with what each changed; * marks the state
          goto N                  bring back the state as of dispatch N, and go on from there
          undo                    step back to the state before the last change
          diff N                  how the state differs from the state as of dispatch N
          help                    this text
          quit                    leave (end of input does too)
        items: \(session.itemNames.joined(separator: " "))
        """
    }
}

import Foundation
import MoonbladeHost
import MoonbladeJournal

/// The read-eval-print loop of `moonblade repl`: one command per line, errors reported and survived.
struct Repl {
    let session: PluginSession
    /// Ctrl-C during a dispatch, on a terminal: stops waiting for it instead of ending the session.
    var interrupts: Interrupts?

    /// A command line, understood.
    enum Command: Equatable {
        case dispatch(DispatchRequest)
        case state
        /// `save FILE`: write the state to a file, as `--save` does.
        case save(String)
        case reload
        case timeTravel(TimeTravelCommand)
        case help
        /// `diff on` / `diff off`: print what each dispatch changed in the state.
        case diff(Bool)
        case quit
        case nothing
    }

    /// Reads the command in `line`: a command word, or an item name with an optional JSON payload.
    static func command(in line: String) throws(DispatchRequestError) -> Command {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        switch words.first {
        case nil: return .nothing
        case "state": return .state
        case "save":
            guard words.count == 2, !words[1].trimmingCharacters(in: .whitespaces).isEmpty else {
                throw DispatchRequestError(message: "save needs a file: save FILE")
            }
            return .save(words[1].trimmingCharacters(in: .whitespaces))
        case "reload": return .reload
        case "diff" where words.count == 2 && ["on", "off"].contains(words[1].trimmingCharacters(in: .whitespaces)):
            return .diff(words[1].trimmingCharacters(in: .whitespaces) == "on")
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
        var showsDiff = false
        while true {
            if let prompt { Console.prompt(prompt) }
            guard let line = await iterator.next() else { return }
            do {
                switch try Self.command(in: line.trimmingCharacters(in: .whitespaces)) {
                case .dispatch(let request):
                    let before = session.state
                    guard let result = try await dispatch(request) else {
                        Console.printError("interrupted: no longer waiting for \(request.name)")
                        continue
                    }
                    Console.print(result.map { $0.jsonString() } ?? "ok")
                    if showsDiff {
                        // The format of `diff N` and the journal: `total: 6 → 7`, positions from 1.
                        let changes = StatePatch(from: before, to: session.state).lines(against: before)
                        Console.print(changes.isEmpty ? "(the state did not change)" : changes.joined(separator: "\n"))
                    }
                case .diff(let on):
                    showsDiff = on
                case .state:
                    Console.print(session.state.jsonString(pretty: true))
                case .save(let file):
                    // A failure is reported by StateFile (`error: cannot save the state: …`); the session goes on.
                    if (try? StateFile.save(session.state, to: file)) != nil { Console.print("saved the state to \(file)") }
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
            } catch let error as DispatchRequestError {
                Console.report(error.naming(session.itemNames))
            } catch {
                Console.report(error)
            }
        }
    }

    /// Dispatches `request`, interruptible with Ctrl-C on a terminal: `.some(result)` when it finished,
    /// nil when a second Ctrl-C stopped the wait. The first Ctrl-C stops the plugin code, so a runaway
    /// item fails (`interrupted`, at its line) and gives its core back.
    private func dispatch(_ request: DispatchRequest) async throws -> JSONValue?? {
        guard let interrupts else { return .some(try await session.dispatch(request)) }
        let host = session.host
        defer { host.endInterrupt() }
        return try await interrupts.interruptible(
            stop: {
                Console.printError("interrupting \(request.name) (Ctrl-C again stops waiting for it)")
                host.interrupt()
            },
            { [session] in try await session.dispatch(request) })
    }

    private var help: String {
        """
        commands:
          NAME [JSON]             dispatch an item with an optional JSON payload (prints its result, or ok)
          dispatch NAME [JSON]    the same
          state                   print the state
          save FILE               write the state to FILE (atomically), as --save does
          reload                  reload every plugin from its folder (the state stays)
          history [COUNT]         the last dispatches (20), numbered, with what each changed; * marks the state
          goto N                  bring back the state as of dispatch N, and go on from there
          undo                    step back to the state before the last change
          diff N                  how the state differs from the state as of dispatch N
          diff on|off             print what each dispatch changes in the state (off at first)
          help                    this text
          quit                    leave (end of input does too)
        Tab completes a command, an item name, or the file after save.
        items: \(session.itemNames.joined(separator: " "))
        """
    }
}

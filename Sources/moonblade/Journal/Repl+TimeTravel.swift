import MoonbladeHost
import MoonbladeJournal

extension Repl {
    /// A time-travel command of the repl.
    enum TimeTravelCommand: Equatable {
        case history(count: Int)
        case goto(Int)
        case undo
        case diff(Int)

        /// Reads `history [COUNT]`, `goto N`, `undo` or `diff N` from the words of a line.
        init(_ words: [String]) throws(DispatchRequestError) {
            let argument = words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : nil
            let number = argument.flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
            switch (words[0], argument, number) {
            case ("history", nil, _): self = .history(count: 20)
            // `history 0` printed "no dispatches yet" about a journal that has some.
            case ("history", _, let count?) where count > 0: self = .history(count: count)
            case ("undo", nil, _): self = .undo
            case ("goto", _, let sequence?): self = .goto(sequence)
            case ("diff", _, let sequence?): self = .diff(sequence)
            default:
                let usage = ["history": "history [COUNT]", "goto": "goto N", "undo": "undo", "diff": "diff N, or diff on|off"]
                throw DispatchRequestError(message: "usage: \(usage[words[0]] ?? words[0]) (N: a dispatch number from history)")
            }
        }
    }

    /// Runs a time-travel command on the session's journal.
    func travel(_ command: TimeTravelCommand) async throws {
        guard let journal = session.journal else { return }
        let travel = TimeTravel(host: session.host, journal: journal)
        switch command {
        case .history(let count):
            let position = try travel.position()
            let entries = try travel.history(last: count)
            if entries.isEmpty { Console.print("no dispatches yet") }
            for entry in entries {
                Console.print(Self.historyLine(entry, current: entry.sequence == position))
            }
        case .goto(let sequence):
            try await travel.goto(sequence)
            Console.print("at \(sequence)")
        case .undo:
            let sequence = try await travel.undo()
            Console.print("back at \(sequence)")
        case .diff(let sequence):
            let lines = try travel.diff(from: sequence)
            Console.print(lines.isEmpty ? "no difference" : lines.joined(separator: "\n"))
        }
    }

    /// `* 3  tally.add {"by":2}  tally v1  count = 3`: one entry of `history`.
    static func historyLine(_ entry: JournalEntry, current: Bool) -> String {
        let (what, result) = (entry.shownItem, entry.shownOutcome(applied: entry.patch.summary))
        let number = String(entry.sequence)
        let source = entry.target == nil ? "  \(entry.source)" : ""
        return "\(current ? "*" : " ")\(String(repeating: " ", count: max(0, 4 - number.count)))\(number)  \(what)\(source)  \(result)"
    }
}

import Foundation
import Testing

@testable import moonblade

/// What Tab offers in the repl, word by word; and, through a pseudo-terminal, what it does to the line.
@Suite("moonblade repl completion")
struct ReplCompletionTests {
    let workspace = Workspace()

    var completion: ReplCompletion {
        var completion = ReplCompletion(itemNames: { ["counter.increment", "counter.reset", "todo.add"] })
        completion.directory = workspace.url.path
        return completion
    }

    @Test func theFirstWordIsACommandOrAnItem() {
        #expect(completion.candidates(for: "co") == ["counter.increment", "counter.reset"])
        #expect(completion.candidates(for: "counter.i") == ["counter.increment"])
        #expect(completion.candidates(for: "s") == ["save", "state"])
        #expect(completion.candidates(for: "").count == ReplCompletion.commands.count + 3)
        #expect(completion.candidates(for: "zz") == [])
    }

    @Test func argumentsAreItemsAfterDispatchAndOnOffAfterDiff() {
        #expect(completion.candidates(for: "dispatch t") == ["todo.add"])
        #expect(completion.candidates(for: "dispatch ") == ["counter.increment", "counter.reset", "todo.add"])
        #expect(completion.candidates(for: "dispatch todo.add ") == [])  // the payload is JSON
        #expect(completion.candidates(for: "diff o") == ["off", "on"])
        #expect(completion.candidates(for: "counter.increment ") == [])
        #expect(completion.candidates(for: "goto ") == [])
    }

    @Test func saveTakesAPath() throws {
        try workspace.file("states/today.json", "{}")
        try workspace.file("states/.hidden.json", "{}")
        try workspace.file("start.json", "{}")
        #expect(completion.candidates(for: "save st") == ["start.json", "states/"])
        #expect(completion.candidates(for: "save states/") == ["states/today.json"])
        #expect(completion.candidates(for: "save states/.") == ["states/.hidden.json"])
        #expect(
            completion.candidates(for: "save \(workspace.url.path)/sta") == [
                "\(workspace.url.path)/start.json", "\(workspace.url.path)/states/",
            ])
    }

    @Test func saveWritesTheStateAndSaysWhereOrWhatWentWrong() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let outcome = try await workspace.run(
            "repl", tally, "--no-watch", input: "tally.add\nsave now.json\nsave\nsave no/such/folder/x.json\n")
        #expect(outcome.stdout == "ok\nsaved the state to now.json\n")
        #expect(outcome.stderr.hasPrefix("error: save needs a file: save FILE\nerror: cannot save the state: "))
        #expect(try workspace.read("now.json") == "{\n  \"total\": 1\n}\n")
    }
}

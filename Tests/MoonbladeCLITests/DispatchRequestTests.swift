import MoonbladeHost
import Testing

@testable import moonblade

@Suite("Dispatch requests and REPL commands")
struct DispatchRequestTests {
    @Test func dispatchWordsGroupEachNameWithItsPayload() async throws {
        let requests = try DispatchRequest.requests(from: [
            "counter.increment", "counter.increment", #"{"by": 2}"#, "todo.add", "5",
        ])
        #expect(
            requests == [
                try DispatchRequest(name: "counter.increment", json: nil),
                try DispatchRequest(name: "counter.increment", json: #"{"by": 2}"#),
                try DispatchRequest(name: "todo.add", json: "5"),
            ])
        #expect(requests[1].payload == ["by": 2])
    }

    @Test(arguments: [["{}"], ["counter.increment", "{", "x"], ["counter.increment", "not json"]])
    func dispatchWordsThatAreNotNameAndPayloadAreRefused(words: [String]) {
        #expect(throws: DispatchRequestError.self) { try DispatchRequest.requests(from: words) }
    }

    @Test(arguments: [
        ("counter.increment", true), ("_a.b2", true), ("my-shop.add", true), ("plugin", false), ("a.b.c", false),
        ("1.5", false), ("-1.5", false), ("a.", false), (#"{"a.b": 1}"#, false), ("todo.add x", false),
    ])
    func itemNamesAreTwoNamesJoinedByADotThatNoJSONTextIs(word: String, isName: Bool) {
        #expect(DispatchRequest.isItemName(word[...]) == isName)
    }

    @Test func aHyphenatedPluginIsNamedAlikeOnTheCommandLineAndInALine() throws {
        #expect(try DispatchRequest.requests(from: ["my-shop.add", "1.5"]) == [try DispatchRequest(name: "my-shop.add", json: "1.5")])
        #expect(try DispatchRequest(line: "my-shop.add 1.5") == DispatchRequest(name: "my-shop.add", json: "1.5"))
    }

    @Test func aLineIsANameAndAnOptionalPayload() async throws {
        #expect(
            try DispatchRequest(line: "  todo.add   {\"title\": \"milk tea\"}  ")
                == DispatchRequest(name: "todo.add", json: #"{"title": "milk tea"}"#))
        #expect(try DispatchRequest(line: "todo.load").payload == nil)
        #expect(throws: DispatchRequestError.self) { try DispatchRequest(line: "todo.add {title}") }
    }

    @Test func replCommandsAreRecognisedAndAnythingElseIsADispatch() async throws {
        #expect(try Repl.command(in: "") == .nothing)
        #expect(try Repl.command(in: "state") == .state)
        #expect(try Repl.command(in: "reload") == .reload)
        #expect(try Repl.command(in: "help") == .help)
        #expect(try Repl.command(in: "exit") == .quit)
        let request = try DispatchRequest(name: "counter.increment", json: #"{"by": 3}"#)
        #expect(try Repl.command(in: #"dispatch counter.increment {"by": 3}"#) == .dispatch(request))
        #expect(try Repl.command(in: #"counter.increment {"by": 3}"#) == .dispatch(request))
        #expect(throws: DispatchRequestError.self) { try Repl.command(in: "dispatch") }
    }
}

import MoonbladeHost
import MoonbladeJournal
import MoonbladeTestSupport
import Testing

@Suite struct StatePatchTests {
    @Test func recordsOnlyThePathsThatChanged() throws {
        let old: JSONValue = ["count": 1, "user": ["name": "ada", "tags": ["a", "b"]], "gone": true]
        let new: JSONValue = ["count": 2, "user": ["name": "ada", "tags": ["a", "c", "d"]], "added": nil]
        let patch = StatePatch(from: old, to: new)
        #expect(
            patch.changes == [
                .init(path: [.key("gone")], value: nil),
                .init(path: [.key("added")], value: .null),
                .init(path: [.key("count")], value: 2),
                .init(path: [.key("user"), .key("tags"), .index(1)], value: "c"),
                .init(path: [.key("user"), .key("tags"), .index(2)], value: "d"),
            ])
        #expect(try patch.applied(to: old) == new)
    }

    @Test func shrinksArraysFromTheEnd() throws {
        let old: JSONValue = ["items": [1, 2, 3, 4]]
        let new: JSONValue = ["items": [1, 5]]
        let patch = StatePatch(from: old, to: new)
        #expect(try patch.applied(to: old) == new)
        // Positions as Lua counts them: the second item is items[2].
        #expect(patch.summary == "items[2] = 5, items[4] removed, items[3] removed")
    }

    @Test func equalStatesMakeAnEmptyPatchAndNumbersCompareByValue() {
        let state: JSONValue = ["a": ["b": [1, 2]]]
        #expect(StatePatch(from: state, to: state).isEmpty)
        #expect(StatePatch(from: ["n": 2], to: ["n": 2.0]).isEmpty)
        #expect(StatePatch(from: ["n": 2], to: ["n": 2.5]).changes == [.init(path: [.key("n")], value: 2.5)])
    }

    @Test func roundTripsThroughItsJSONForm() throws {
        let patch = StatePatch(from: ["a": [1, ["b": "x"]], "c": 1], to: ["a": [1, ["b": "y"], 3]])
        #expect(try StatePatch(json: patch.json) == patch)
        #expect(patch.jsonText == #"[[["c"]],[["a",1,"b"],"y"],[["a",2],3]]"#)
        let quoted = StatePatch(changes: [.init(path: [.key("say \"hi\"\n"), .index(0)], value: ["k": 1.5])])
        #expect(quoted.jsonText == quoted.json.jsonString())
        #expect(StatePatch().jsonText == "[]")
        #expect(try patch.applied(to: ["a": [1, ["b": "x"]], "c": 1]) == ["a": [1, ["b": "y"], 3]])
    }

    @Test func randomEditsRoundTrip() throws {
        var generator = SplitMix(seed: 21)
        for _ in 0..<300 {
            let old = JSONValue.random(depth: 3, using: &generator)
            let new = JSONValue.random(depth: 3, using: &generator)
            let patch = StatePatch(from: old, to: new)
            #expect(try patch.applied(to: old).jsonString() == new.jsonString())
            #expect(patch.jsonText == patch.json.jsonString())
        }
    }

    @Test func aPatchThatDoesNotFitIsAnErrorNamingThePath() {
        let patch = StatePatch(changes: [.init(path: [.key("todos"), .index(4), .key("done")], value: true)])
        #expect {
            try patch.applied(to: ["todos": [["done": false]]])
        } throws: { error in
            "\(error)" == "the change at todos[5].done does not fit: index 4 of an array of 1"
        }
    }

    @Test func malformedStoredPatchesAreRefused() {
        #expect(throws: StatePatchFormatError.self) { try StatePatch(json: ["not a change"]) }
        #expect(throws: StatePatchFormatError.self) { try StatePatch(json: [[[-1], 2]]) }
        #expect(throws: StatePatchFormatError.self) { try StatePatch(json: ["a": 1]) }
    }
}

extension JSONValue {
    /// A random value: objects over a few fixed keys (so two values share some), arrays up to 4 long.
    static func random(depth: Int, using generator: inout SplitMix) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 6 : 3), using: &generator) {
        case 0: return .integer(Int64.random(in: 0..<3, using: &generator))
        case 1: return .string(["x", "y"].randomElement(using: &generator)!)
        case 2: return .bool(Bool.random(using: &generator))
        case 3: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in random(depth: depth - 1, using: &generator) })
        default:
            var members: [String: JSONValue] = [:]
            for key in ["a", "b", "c"] where Bool.random(using: &generator) {
                members[key] = random(depth: depth - 1, using: &generator)
            }
            return .object(members)
        }
    }
}

import Foundation
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// JSON a careless or hostile user hands `moonblade run`: in the state file, in `--dispatch` payloads
/// and in `--watch` lines. What is read keeps its shape through Lua, `--save` and the next run; what
/// cannot be read exactly is refused with its line, column and path, the documented exit code, and no
/// file touched.
@Suite("moonblade run: hostile JSON")
struct HostileInputTests {
    let workspace = Workspace()

    /// Copies the document within the state, or takes a payload copied by plain Lua (keeping the
    /// kind markers, which a payload's tables show and a draft's do not).
    static let plugin = """
        \(luaDeepCopyKeepingKinds)
        return {
          name = "doc",
          updaters = {
            copy = function(state) state.copy = state.doc end,
            set = function(state, payload) state.doc = deep_copy(payload) end,
            touch = function(state) state.n = (state.n or 0) + 1 end,
          },
        }
        """

    static let documents = [
        #"{"doc": {"one": 1.0, "int": 1, "negzero": -0.0, "tiny": 5e-324, "big": 1e300, "p53": 9007199254740993}}"#,
        #"{"doc": {"max": 9223372036854775807, "min": -9223372036854775808, "float": 9.223372036854776e18}}"#,
        #"{"doc": [null, {"a": null}, [null], {}, [], [{}, [[]]], {"": {}}]}"#,
        #"{"doc": {"1": "one", "2": [1], "-0": 0, "1.0": 1.0, "a.b": {"[1]": true}, "__index": "x", "n": null}}"#,
        #"{"doc": "\u0000 \"quoted\" \\ \/ é 😀 \ud83d\ude00 \u001f"}"#,
        "{\"doc\": " + String(repeating: "[", count: 252) + "{}" + String(repeating: "]", count: 252) + "}",
        #"{"doc": {"huge": ""#.appending(String(repeating: "x😀", count: 200_000)) + #""}}"#,
    ]

    /// The document nested as deep as JSON text is read (`documents[5]`): not under AddressSanitizer,
    /// whose larger frames overflow the 8 MiB of the thread decoding it (a plain debug build needs 3.5).
    static let runnableDocuments = documents.indices.filter { !(addressSanitized && $0 == 5) }

    @Test(arguments: runnableDocuments)
    func aDocumentKeepsItsShapeThroughLuaASaveAndTheNextRun(_ index: Int) async throws {
        let doc = try workspace.plugin("doc", Self.plugin)
        try workspace.file("state.json", Self.documents[index])
        let expected = try JSONValue(json: Self.documents[index])
        // The state's document copied within the state; the same document as a payload, copied by Lua.
        let first = try await workspace.run(
            ["run", doc, "--state", "state.json", "--dispatch", "doc.copy", "--watch", "--save", "saved.json"],
            input: "doc.set \(expected["doc"]!.jsonString())\n")
        #expect(first.status == 0, "\(first.stderr)")
        let saved = try JSONValue(json: try workspace.read("saved.json"))
        #expect(saved["doc"]?.jsonString() == expected["doc"]?.jsonString())
        #expect(saved["copy"]?.jsonString() == expected["doc"]?.jsonString())

        // Through Lua again (copying what is already equal changes nothing): the very text saved.
        let second = try await workspace.run("run", doc, "--state", "saved.json", "--dispatch", "doc.copy")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == (try workspace.read("saved.json")))
    }

    @Test(
        arguments: [
            ([], "line 1, column 1: expected a JSON value, found the end of the text"),
            (Array(#"{"a": 1} trailing"#.utf8), "line 1, column 10: expected the end of the text after the value, found 't'"),
            (Array("{\"a\": 1,\n \"a\": 2}".utf8), #"line 2, column 2: duplicate key "a""#),
            (
                Array(#"{"id": 18446744073709551615}"#.utf8),
                "line 1, column 8 (at id): the integer 18446744073709551615 does not fit in 64 bits (write it as a string to keep every digit)"
            ),
            (Array(#"{"x": [1e400]}"#.utf8), "line 1, column 8 (at x[1]): the number 1e400 is too large for a 64-bit float"),
            (Array(#"{"s": "\udead"}"#.utf8), #"line 1, column 8 (at s): unpaired surrogate \udead in a string (not a character)"#),
            (Array(#"{"s": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), "line 1, column 7 (at s): the string is not valid UTF-8"),
            (
                Array(("{\"a\": " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}").utf8),
                "line 1, column 261 (at a[1][1][1][1][1][1][1][1][1][1][1]…[1][1][1][1][1][1]): nested more than 255 levels deep\n"
            ),
            (Array("{\"a\": NaN}".utf8), "line 1, column 7 (at a): expected a JSON value, found 'N'"),
        ] as [([UInt8], String)])
    func aStateFileThatIsNotExactJSONExits4WithItsPlace(_ bytes: [UInt8], _ place: String) async throws {
        let doc = try workspace.plugin("doc", Self.plugin)
        try workspace.file("state.json", bytes: bytes)
        try workspace.file("saved.json", "earlier\n")
        let outcome = try await workspace.run("run", doc, "--state", "state.json", "--save", "saved.json")
        #expect(outcome.status == 4)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.hasPrefix("error: the state file state.json is not valid JSON: \(place)"), "\(outcome.stderr)")
        #expect(outcome.stderr.split(separator: "\n").count == 1, "\(outcome.stderr)")
        #expect(try workspace.read("saved.json") == "earlier\n")
    }

    @Test func aStateFileWithAByteOrderMarkIsRead() async throws {
        let doc = try workspace.plugin("doc", Self.plugin)
        try workspace.file("state.json", bytes: [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1.5}"#.utf8))
        let outcome = try await workspace.run("run", doc, "--state", "state.json")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try outcome.json() == ["a": 1.5])
    }

    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, #"line 1, column 10: duplicate key "a""#),
        ("1.0.0", "line 1, column 4: expected the end of the text after the value, found '.'"),
        (#""\ud800""#, #"line 1, column 2: unpaired surrogate \ud800 in a string (not a character)"#),
        ("99999999999999999999", "line 1, column 1: the integer 99999999999999999999 does not fit in 64 bits"),
    ])
    func aPayloadOnTheCommandLineThatIsNotExactJSONIsAUsageError(_ payload: String, _ place: String) async throws {
        let doc = try workspace.plugin("doc", Self.plugin)
        let outcome = try await workspace.run("run", doc, "--dispatch", "doc.set", payload)
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.contains("the payload of doc.set is not valid JSON"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(place), "\(outcome.stderr)")
    }

    @Test func anArgumentThatIsNotUTF8IsAUsageErrorNotAReplacementCharacter() async throws {
        let doc = try workspace.plugin("doc", Self.plugin)
        // Foundation's Process takes Swift strings, which cannot hold such bytes: a shell makes them.
        let output = try OutputFiles(in: workspace.url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #"exec "$0" run "$1" --dispatch doc.set "$(printf '"\377"')""#, MoonbladeProcess.executable.path, doc,
        ]
        process.currentDirectoryURL = workspace.url
        process.standardOutput = try FileHandle(forWritingTo: output.stdout)
        process.standardError = try FileHandle(forWritingTo: output.stderr)
        try process.run()
        await MoonbladeProcess.waitForExit(process, arguments: process.arguments ?? [])
        let outcome = try output.outcome(status: process.terminationStatus)
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == "error: argument 5 of the command line is not valid UTF-8\n")
    }

    @Test func watchLinesThatAreNotExactJSONAreReportedAndTheRestApplied() async throws {
        let doc = try workspace.plugin("doc", Self.plugin)
        let long = String(repeating: "é", count: 500_000)
        var input = Data()
        for line in [
            #"doc.set {"kept": 1.0}"#,
            #"doc.set {"a": 1, "a": 2}"#,
            #"doc.set {"s": "\udc00"}"#,
            "doc.set [1,",
            "doc.touch\r",
            "doc.set {\"long\": \"\(long)\", \"kept\": 1.0}",
            "   ",
            "}{ garbage",
        ] {
            input += Data((line + "\n").utf8)
        }
        input += Data("doc.set \"".utf8) + Data([0xFF, 0xFE]) + Data("\"\n".utf8)
        input += Data("doc.touch".utf8)  // the last line, without a newline
        let outcome = try await workspace.run(["run", doc, "--watch", "--save", "saved.json"], inputBytes: input)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let errors = outcome.stderr.split(separator: "\n").map(String.init)
        #expect(errors.count == 5, "\(outcome.stderr.prefix(2000))")
        #expect(errors.contains { $0.contains(#"duplicate key "a""#) })
        #expect(errors.contains { $0.contains(#"unpaired surrogate \udc00"#) })
        #expect(errors.contains { $0.contains("the payload of doc.set is not valid JSON ([1,): line 1, column 4") })
        #expect(errors.contains { $0.contains(#"expected an item name (plugin.item), found "}{""#) })
        #expect(errors.contains { $0 == "error: line 9 of standard input is not valid UTF-8; skipped" })
        let saved = try JSONValue(json: try workspace.read("saved.json"))
        #expect(saved == ["doc": ["long": .string(long), "kept": 1.0], "n": 2])
        #expect(try workspace.read("saved.json").contains(#""kept": 1.0"#))
    }
}

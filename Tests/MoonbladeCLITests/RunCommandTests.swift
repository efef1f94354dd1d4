import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run")
struct RunCommandTests {
    let workspace = Workspace()

    @Test func appliesDispatchesInOrderAndPrintsTheFinalStateAsSortedJSON() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--dispatch", "counter.increment",
            "--dispatch", "counter.increment", #"{"by": 5}"#, "--dispatch", "counter.increment")
        #expect(outcome.status == 0)
        #expect(outcome.stderr == "")
        #expect(outcome.stdout == "{\n  \"counter\": 7\n}\n")
    }

    @Test func startsFromTheStateFile() async throws {
        try workspace.file("start.json", #"{"counter": 10, "note": "kept"}"#)
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), "--state", "start.json", "--dispatch", "counter.increment")
        #expect(outcome.status == 0)
        #expect(try outcome.json() == ["counter": 11, "note": "kept"])
    }

    @Test func withoutDispatchesPrintsTheInitialState() async throws {
        let outcome = try await workspace.run("run", shippedPlugin("counter"))
        #expect(outcome.status == 0)
        #expect(try outcome.json() == [:])
    }

    @Test func theStateIsPrintedOnceTheOnStartWorkIsDone() async throws {
        // `load` awaits Swift work before it dispatches, so the store is briefly idle-looking but busy.
        let boot = try workspace.plugin(
            "boot",
            """
            return {
              name = "boot",
              updaters = { set = function(state, p) state.loaded_at = p.at end },
              side_effects = { load = function(ctx) ctx.dispatch("boot.set", { at = ctx.deps.clock.now() }) end },
              observers = { { on_start = { "boot.load" } } },
            }
            """)
        let outcome = try await workspace.run("run", boot)
        #expect(outcome.status == 0)
        #expect(try outcome.json()["loaded_at"] != nil)
    }

    @Test func aPluginLogEntryKeepsEveryField() async throws {
        // `reload` is a field the host's own reload entries carry; a plugin's entry is shown whole.
        let chatty = try workspace.plugin(
            "chatty",
            """
            return { name = "chatty", side_effects = {
              say = function(ctx) ctx.deps.log.info { message = "hi", reload = "soon" } end,
            } }
            """)
        let outcome = try await workspace.run("run", chatty, "--dispatch", "chatty.say", "--no-timestamps")
        #expect(outcome.status == 0)
        #expect(outcome.stderr == "info [chatty] hi reload=soon\n")
    }

    @Test func aFailedDispatchExits1WithOneLineNamingThePlace() async throws {
        let tally = try workspace.plugin("tally", tallyPlugin)
        let outcome = try await workspace.run(
            "run", tally, "--dispatch", "tally.add", "--dispatch", "tally.fail", "--dispatch", "tally.add")
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr == "error: tally.fail: tally/plugin.lua:5: tally refuses\n")
    }

    @Test func anUnknownItemExits1() async throws {
        let outcome = try await workspace.run("run", shippedPlugin("counter"), "--dispatch", "counter.nope")
        #expect(outcome.status == 1)
        #expect(outcome.stderr == "error: counter.nope: no such item is registered; did you mean counter.reset?\n")
    }

    @Test func aPluginThatDoesNotLoadExits3WithItsPlace() async throws {
        let broken = try workspace.plugin(
            "broken", "return {\n  name = \"broken\",\n  updaters = {\n    add = 3,\n  },\n}\n")
        let outcome = try await workspace.run(
            "run", shippedPlugin("counter"), broken, "--dispatch", "counter.increment")
        #expect(outcome.status == 3)
        #expect(outcome.stdout == "")
        #expect(
            outcome.stderr
                == "error: plugin broken: broken/plugin.lua:4: updaters.add must be a function, found integer 3\n"
        )
    }

    @Test(
        arguments: [
            ("missing.json", nil, "error: cannot read missing.json: no such file\n"),
            ("bad.json", "{ not json", "error: the state file bad.json is not valid JSON: line 1, column 3: expected a key in quotes, found 'n'\n"),
            ("list.json", "[1, 2]", "error: the state file list.json must hold a JSON object\n"),
        ] as [(String, String?, String)])
    func aStateFileThatCannotBeUsedExits4(name: String, content: String?, message: String) async throws {
        if let content { try workspace.file(name, content) }
        let outcome = try await workspace.run("run", shippedPlugin("counter"), "--state", name)
        #expect(outcome.status == 4)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.hasPrefix(message))
    }

    @Test(arguments: [
        ["run"],
        ["run", "Plugins/counter", "--dispatch", "counter.increment", "{ not json"],
        ["run", "Plugins/counter", "--dispatch", "not-an-item"],
        ["run", "Plugins/counter", "--no-such-option"],
        ["frobnicate"],
    ])
    func aWrongCommandLineExits64(arguments: [String]) async throws {
        let outcome = try await MoonbladeProcess.run(arguments, in: workspace.url)
        #expect(outcome.status == 64)
        #expect(outcome.stdout == "")
        #expect(outcome.stderr.contains("Error:") || outcome.stderr.hasPrefix("error: no command "))
    }

    @Test func helpDocumentsTheExitCodes() async throws {
        let outcome = try await workspace.run("run", "--help")
        #expect(outcome.status == 0)
        for code in [
            "0   success", "1   a dispatch failed", "2   a spec case failed", "3   a plugin failed",
            "4   a folder given does not exist", "5   a plugin has no spec", "6   a failure reached only the log",
            "64  the command line", "130 run --watch stopped by SIGINT",
        ] {
            #expect(outcome.stdout.contains(code))
        }
    }

    @Test func dataDirectoryHoldsWhatStorageWritesAndANewRunReadsIt() async throws {
        let save = try await workspace.run(
            "run", shippedPlugin("todo"), "--data-dir", "data",
            "--dispatch", "todo.add", #"{"title": "milk"}"#, "--dispatch", "todo.save")
        #expect(save.status == 0)
        #expect(try workspace.read("data/todos.json") == #"[{"done":false,"title":"milk"}]"#)

        let load = try await workspace.run(
            "run", shippedPlugin("todo"), "--data-dir", "data", "--dispatch", "todo.load")
        #expect(load.status == 0)
        // todo.load returns how many it loaded, printed as its result before the state.
        let result = load.stdout.prefix { $0 != "\n" }
        #expect(result == "1")
        #expect(try JSONValue(json: String(load.stdout.dropFirst(result.count + 1))) == ["todos": [["title": "milk", "done": false]]])
    }
}

import Foundation
import MoonbladeTestSupport
import MoonbladeTesting
import Testing

/// Spec files written to break the runner where earlier hostile specs did not reach: bodies that are
/// no functions, errors that are no strings, values shown twice over, hooks that yield or run away,
/// cases that try to share what they made. Each case fails at its line with what it did, quickly.
@Suite struct SpecRunnerHostileCorpusTests {
    /// Every case of `spec` (in a fresh sandbox) with its result, in declaration order.
    private func results(
        _ spec: String, runner: LuaSpecRunner = LuaSpecRunner()
    ) async throws -> [(name: String, result: LuaSpecResult)] {
        let sandbox = try SpecSandbox(spec: spec)
        var results: [(String, LuaSpecResult)] = []
        for specCase in sandbox.cases {
            results.append((specCase.names.joined(separator: " "), await runner.run(specCase)))
        }
        return results
    }

    private func failed(_ result: LuaSpecResult?) -> LuaSpecFailure? {
        if case .failed(let failure)? = result { return failure }
        return nil
    }

    /// A body that is not a function was called only later: `describe("x")` failed with Lua's bare
    /// "attempt to call a nil value" placed at the file's first line, whatever line declared it.
    @Test(arguments: [
        ("describe(\"no body\")", "describe needs a function, got nil"),
        ("context(\"numbered\", 42)", "context needs a function, got 42"),
        ("it(\"a table\", { 1 })", "it needs a function, got { 1 }"),
        ("before_each(\"text\")", "before_each needs a function, got \"text\""),
        ("teardown()", "teardown needs a function, got nil"),
    ])
    func aBodyThatIsNoFunctionFailsAtTheLineThatDeclaredIt(declaration: String, message: String) async throws {
        let sandbox = try SpecSandbox(spec: "describe(\"outer\", function()\n  local x = 1\n  \(declaration)\nend)\n")
        let cases = sandbox.cases
        #expect(cases.count == 1)
        let failure = try #require(cases.first?.loadFailure)
        #expect(failure.line == 3, "\(failure)")
        #expect(failure.message == message)
    }

    @Test func anItWithoutABodyIsStillPending() async throws {
        let outcome = try await results("it(\"later\")\nit(\"also later\", nil)\n")
        #expect(outcome.map(\.result) == [.pending, .pending])
    }

    /// What `error` raised, whatever it is, is the case's message; a `__tostring` that fails or loops
    /// is not called (the table is shown as a table). A value that is no string carries no place, so
    /// the case is placed at its `it`.
    @Test(arguments: [
        ("error({ code = 1, why = \"full\" })", "{ code = 1, why = \"full\" }"),
        ("error(nil)", "nil"),
        ("error(false)", "false"),
        ("error(42)", "42"),
        ("error(setmetatable({}, { __tostring = function() error(\"in tostring\") end }))", "{}"),
        ("error(setmetatable({ 1 }, { __tostring = function(t) return tostring(t) end }))", "{ 1 }"),
        ("error(setmetatable({}, { __tostring = function() return {} end }))", "{}"),
    ])
    func anErrorThatIsNoStringIsShownAtItsLine(raise: String, shown: String) async throws {
        let outcome = try await results("it(\"raises\", function()\n  \(raise)\nend)\n")
        let failure = try #require(failed(outcome.first?.result))
        #expect(failure.line == 1)
        #expect(failure.message == shown)
    }

    /// A table holding one table twice is shown twice over: forty levels of `{ t, t }` are 2^40
    /// parts, and the case failed on the instruction budget instead of showing what it raised or
    /// compared. The shown value is cut instead, and the comparison (which meets each pair once) stands.
    @Test(
        .hangGuard,
        arguments: [
            ("error(t)", 1),  // no string, no place: at the `it`
            ("local u = {}\n  for i = 1, 40 do u = { u, u } end\n  u[1] = 5\n  assert.are.same(t, u)", 7),
            ("assert.are_not.same(t, t)", 4),
        ])
    func aValueThatHoldsATableManyTimesIsShownCut(check: String, line: Int) async throws {
        let spec = "it(\"shared\", function()\n  local t = {}\n  for i = 1, 40 do t = { t, t } end\n  \(check)\nend)\n"
        let outcome = try await results(spec)
        let failure = try #require(failed(outcome.first?.result))
        #expect(!failure.message.contains("instruction budget"), "\(failure.message.prefix(300))")
        #expect(failure.message.contains("{ { { {"), "\(failure.message.prefix(300))")
        #expect(failure.message.contains("…"), "\(failure.message.prefix(300))")
        #expect(failure.line == line)
    }

    @Test func aShortValueIsShownWhole() async throws {
        let outcome = try await results("it(\"list\", function()\n  assert.are.same({ 1, 2, { 3 } }, { 1, 2, { 4 } })\nend)\n")
        let failure = try #require(failed(outcome.first?.result))
        #expect(failure.message == "assert.are.same: values differ at [3][1]\n  expected: { 1, 2, { 3 } }\n  actual:   { 1, 2, { 4 } }")
    }

    /// Two tables whose cycles have other lengths unroll to the same infinite tree: the same, as in
    /// luassert; and a difference past a cycle is found on the first way round.
    @Test func cyclesOfOtherLengthsCompareWithoutHanging() async throws {
        let outcome = try await results(
            """
            it("unrolled", function()
              local a, b, c = { n = 1 }, { n = 1 }, { n = 1 }
              a.next = a
              b.next, c.next = c, b
              assert.are.same(a, b)
            end)
            it("differs past the cycle", function()
              local a, b, c = { n = 1 }, { n = 1 }, { n = 2 }
              a.next = a
              b.next, c.next = c, b
              assert.are.same(a, b)
            end)
            it("cycles through keys", function()
              local a, b = {}, {}
              a[a], b[b] = true, true
              assert.are_not.same(a, b)
              assert.are.same(a, a)
            end)
            """)
        #expect(outcome.count == 3)
        #expect(outcome[0].result == .passed)
        let failure = try #require(failed(outcome[1].result))
        #expect(failure.line == 11)
        #expect(failure.message.hasPrefix("assert.are.same: values differ at next.n"), "\(failure)")
        #expect(outcome[2].result == .passed)
    }

    /// A hook that yields by itself fails the case at the hook's line as a body does.
    @Test(arguments: ["setup", "before_each", "after_each", "teardown"])
    func aHookThatYieldsFailsAtItsLine(hook: String) async throws {
        let outcome = try await results(
            """
            describe("d", function()
              \(hook)(function()
                coroutine.yield("anything")
              end)
              it("x", function() end)
            end)
            """)
        let failure = try #require(failed(outcome.first?.result))
        #expect(failure.line == 3)
        #expect(failure.message.contains("a spec cannot yield by itself"), "\(failure)")
    }

    /// A runaway hook fails at its line on the budget; the hooks after it still run (a teardown's
    /// cleanup is not skipped), and the first failure is the one reported.
    @Test(arguments: ["setup", "before_each", "after_each", "teardown"])
    func aRunawayHookFailsAtItsLine(hook: String) async throws {
        let outcome = try await results(
            """
            describe("d", function()
              \(hook)(function()
                while true do end
              end)
              teardown(function() error("the teardown ran") end)
              it("x", function() end)
            end)
            """, runner: LuaSpecRunner(instructionBudget: 200_000))
        let failure = try #require(failed(outcome.first?.result))
        #expect(failure.line == 3)
        #expect(failure.message.contains("instruction budget"), "\(failure)")
    }

    @Test(.hangGuard)
    func aMemoryBombInAnAfterHookFailsAtItsLineAndTheNextCaseRuns() async throws {
        let outcome = try await PoolHoldingWork.shared.run {
            try await results(
                """
                describe("d", function()
                  after_each(function()
                    local s = "x"
                    while true do s = s .. s end
                  end)
                  it("x", function() end)
                end)
                it("next", function() assert.are.same({}, {}) end)
                """)
        }
        #expect(outcome.count == 2)
        let failure = try #require(failed(outcome[0].result))
        #expect(failure.line == 6)  // a memory error carries no place: at the `it`
        #expect(failure.message.hasPrefix("memory limit of"), "\(failure)")
        #expect(outcome[1].result == .passed)
    }

    /// Each case has its own VM and store: what one case stashes (a global, a state table, a spy, a
    /// changed library function) is not there in the next, whatever order they run in.
    @Test func whatACaseStashesIsGoneInTheNext() async throws {
        let outcome = try await results(
            """
            local stash = {}
            it("stashes", function()
              dispatch("shop.add", { item = "tea" })
              stash.state = state()
              stash.state.items[1] = "changed"
              leaked = true
              string.upper = nil
              assert.are.same({ items = { "tea" } }, state())
            end)
            it("finds nothing", function()
              assert.is_nil(stash.state)
              assert.is_nil(leaked)
              assert.are.equal("A", string.upper("a"))
              assert.are.same({}, state())
            end)
            """)
        #expect(outcome.map(\.result) == [.passed, .passed])
    }

    /// Two cases of the same name are two cases: each runs and is reported on its own.
    @Test func duplicateNamesAreEachTheirOwnCase() async throws {
        let outcome = try await results(
            """
            describe("d", function()
              it("same", function() end)
              it("same", function() error("the second") end)
            end)
            describe("d", function()
              it("same", function() end)
            end)
            """)
        #expect(outcome.map(\.name) == ["d same", "d same", "d same"])
        #expect(outcome.map { failed($0.result)?.line } == [nil, 3, nil])
    }

    /// A state is a table of fields: `set_state(5)` was taken, and the case failed later, inside the
    /// plugin, at the `dispatch` line. It fails where the state was given.
    @Test(arguments: [
        ("set_state(5)", "set_state needs a state, a table of fields; got a number"),
        ("set_state(nil)", "set_state needs a state, a table of fields; got nil"),
        ("set_state({ 1, 2 })", "set_state needs a state, a table of fields; got a list"),
        ("state()\n  set_state(\"text\")", "set_state needs a state, a table of fields; got a string"),
        ("apply_updater(true, \"shop.add\", { item = \"tea\" })", "apply_updater needs a state, a table of fields; got a boolean"),
    ])
    func aStateThatIsNoTableFailsWhereItWasGiven(call: String, message: String) async throws {
        let outcome = try await results("it(\"x\", function()\n  \(call)\n  dispatch(\"shop.add\", { item = \"tea\" })\nend)\n")
        let failure = try #require(failed(outcome.first?.result))
        #expect(failure.line == call.split(separator: "\n").count + 1)
        #expect(failure.message == message)
    }

    /// `apply_updater` runs one updater on the state given and hands the new one back: the store's
    /// own state is untouched, and a plain `{}` is an empty state.
    @Test func applyUpdaterLeavesTheStoreAlone() async throws {
        let outcome = try await results(
            """
            it("x", function()
              dispatch("shop.add", { item = "tea" })
              local given = { items = { "cake" } }
              assert.are.same({ items = { "cake", "jam" } }, apply_updater(given, "shop.add", { item = "jam" }))
              assert.are.same({ items = { "cake" } }, given)
              assert.are.same({ items = { "jam" } }, apply_updater({}, "shop.add", { item = "jam" }))
              assert.are.same({ items = { "tea" } }, state())
              assert.has_error(function() apply_updater({}, "shop.broken") end, "the shelf collapsed")
              assert.has_error(function() apply_updater({}, "shop.price") end)
            end)
            """)
        #expect(outcome.first?.result == .passed, "\(outcome)")
    }

    /// Metatables whose `__pairs`, `__index` or `__len` fail or never end: tables are read raw, as
    /// luassert compares them. They replaced the failure with their own error ("pairs refused") or
    /// ran to the instruction budget.
    @Test(arguments: [
        "{ __pairs = function() error(\"pairs refused\") end }",
        "{ __pairs = function() return function(_, k) return (k or 0) + 1, true end end }",
        "{ __index = function() error(\"index refused\") end }",
        "{ __index = function(_, k) return k end }",
        "{ __len = function() error(\"len refused\") end }",
        "{ __len = function() return math.maxinteger end }",
    ])
    func metatablesCannotReplaceWhatIsShownOrCompared(metatable: String) async throws {
        let outcome = try await results(
            """
            local mt = \(metatable)
            it("raises", function()
              error(setmetatable({ a = 1 }, mt))
            end)
            it("compares", function()
              assert.are.same({ a = 2 }, setmetatable({ a = 1 }, mt))
            end)
            it("holds", function()
              assert.are.same({ a = 1 }, setmetatable({ a = 1 }, mt))
            end)
            """)
        #expect(outcome.count == 3)
        let raised = try #require(failed(outcome.first?.result))
        #expect(raised.message == "{ a = 1 }")
        let compared = try #require(failed(outcome.dropFirst().first?.result))
        #expect(compared.line == 6)
        #expect(compared.message == "assert.are.same: values differ at a\n  expected: { a = 2 }\n  actual:   { a = 1 }")
        #expect(outcome.last?.result == .passed)
    }

    /// Finalizers run with the count hook off: a spec's `__gc` that looped hung `moonblade test` as
    /// the case's VM closed, and one that called `dispatch` there crashed it (the session was gone).
    /// Specs get no `__gc`, as plugins get none; the next case runs.
    @Test(arguments: [
        "keep = setmetatable({}, { __gc = function() while true do end end })",
        "keep = setmetatable({}, { __gc = function() dispatch(\"shop.add\", { item = \"tea\" }) end })",
        "setmetatable({}, { __gc = false })",
    ])
    func aFinalizerIsRefusedAtItsLine(declaration: String) async throws {
        let outcome = try await results(
            """
            it("finalizes", function()
              \(declaration)
            end)
            it("next", function()
              local mt = { __index = function(_, key) return key end }
              assert.are.equal("x", setmetatable({}, mt).x)
            end)
            """)
        #expect(outcome.count == 2)
        let failure = try #require(failed(outcome.first?.result))
        #expect(failure.line == 2)
        #expect(failure.message == "setmetatable: __gc is not available to specs (a finalizer would run where no limit can stop it)")
        #expect(outcome.last?.result == .passed)
    }

    /// A stub's answer that is no JSON value failed with Swift's `DecodingError.dataCorrupted: Data was
    /// corrupted. Path: t. Debug description: …`; a stub calling the store was told it was "a
    /// coroutine the spec made".
    @Test(arguments: [
        ("local t = {}\n    t.t = t\n    return t", "stub prices.lookup answered value.t: found a table that contains itself (a cycle)"),
        ("return print", "stub prices.lookup answered value: JSON has no function: expected nil, a boolean, number, string or table"),
        (
            "dispatch(\"shop.add\", { item = \"tea\" })",
            "dispatch cannot be called from the stub prices.lookup: the store is waiting for its answer"
        ),
        ("set_state({})", "set_state cannot be called from the stub prices.lookup: the store is waiting for its answer"),
        ("return state()", nil),
    ])
    func aStubsAnswerOrCallIsToldPlainly(body: String, message: String?) async throws {
        let outcome = try await results(
            """
            it("asks", function()
              stub("prices.lookup", function()
                \(body)
              end)
              dispatch("shop.price", { item = "tea" })
            end)
            """)
        let failure = failed(outcome.first?.result)
        // At the dispatch, after the stub's lines.
        #expect(failure?.line == (message == nil ? nil : body.split(separator: "\n").count + 4))
        if let message {
            #expect(failure?.message.hasSuffix(message) == true, "\(String(describing: failure))")
            #expect(failure?.message.contains("DecodingError") == false)
        }
    }
}

import Foundation
import MoonbladeTestSupport
import MoonbladeTesting
import Testing

/// Specs written the way they go wrong: bombs, blocks declared at the wrong time, coroutines around
/// the store, failing hooks, cyclic values. Each fails clearly at its line, or passes as busted would.
@Suite struct LuaSpecHostileTests {
    /// One at a time, and not beside other such work (``PoolHoldingWork``): each bomb fills the spec
    /// VM's 256 MiB on the task that runs the case, holding a thread of the cooperative pool for
    /// seconds (tens under sanitizers). Three at once held both of a 2-core machine's, and every side
    /// effect and time-bound test elsewhere waited.
    @Test(
        .serialized, .hangGuard,
        arguments: [
            "local t = {}\n  while true do t[#t + 1] = string.rep(\"x\", 1 << 20) .. #t end",
            "local s = \"x\"\n  while true do s = s .. s end",
            "local t = {}\n  for i = 1, math.huge do t[i] = { i } end",
        ])
    func aSpecThatAllocatesWithoutBoundFailsOnTheMemoryLimitAtItsCase(_ body: String) async throws {
        let sandbox = try SpecSandbox(spec: "\nit(\"bomb\", function()\n  \(body)\nend)\n")
        let failure = try #require(try await PoolHoldingWork.shared.run { try await sandbox.failure() })
        #expect(failure.line == 2)
        // Nothing of the runner's own code in the message: only the limit.
        #expect(failure.message.hasPrefix("memory limit of"), "\(failure)")
        #expect(!failure.message.contains("moonblade/"), "\(failure)")
        // The next spec in a new VM is unaffected.
        let next = try SpecSandbox(spec: "it(\"after\", function() dispatch(\"shop.add\", { item = \"tea\" }) end)")
        #expect(try await next.failure() == nil)
    }

    @Test(arguments: [
        "it(\"inner\", function() end)", "describe(\"inner\", function() end)",
        "before_each(function() end)", "pending(\"later\")", "after_each(function() end)",
        "context(\"inner\", function() end)", "setup(function() end)",
    ])
    func declaringWhileACaseRunsFailsAtThatLine(_ declaration: String) async throws {
        let inBody = try SpecSandbox(spec: "it(\"outer\", function()\n  local x = 1\n  \(declaration)\nend)\n")
        let failure = try #require(try await inBody.failure())
        #expect(failure.line == 3)
        let word = String(declaration.prefix { $0 != "(" })
        #expect(failure.message.contains("\(word) cannot be called while a case runs"), "\(failure)")
        let inHook = try SpecSandbox(
            spec: """
                describe("d", function()
                  before_each(function()
                    \(declaration)
                  end)
                  it("x", function() end)
                end)
                """)
        #expect(try await inHook.failure()?.line == 3)
    }

    @Test func theStoreCannotBeReachedFromACoroutineTheSpecMade() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("wrapped", function()
                  local wrapped = coroutine.wrap(function()
                    dispatch("shop.add", { item = "tea" })
                  end)
                  wrapped()
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 5)
        #expect(failure.message.contains("not from a coroutine the spec made"), "\(failure)")
        #expect(failure.message.contains("sandbox_spec.lua:3"), "\(failure)")
    }

    @Test func aFailingBeforeEachSkipsTheBodyAndStillRunsTheAfterHooks() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                local ran = {}
                describe("d", function()
                  before_each(function() error("no stock") end)
                  after_each(function() assert.are.same({}, ran) end)
                  after_each(function() error("after " .. #ran) end)
                  it("x", function() ran[#ran + 1] = "body" end)
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        // The first failure is the one reported; the body never ran (the after hook saw nothing).
        #expect(failure.line == 3)
        #expect(failure.message == "no stock")
    }

    /// A case comparing two tables that hold themselves, `n` being 1 in the first and `n` in the second.
    private func cyclicSame(n: Int) throws -> SpecSandbox {
        try SpecSandbox(
            spec: """
                it("cycles", function()
                  local a, b = { n = 1 }, { n = \(n) }
                  a.self, b.self = a, b
                  assert.are.same(a, b)
                end)
                """)
    }

    @Test func sameComparesCyclicTablesAndShowsThem() async throws {
        #expect(try await cyclicSame(n: 1).failure() == nil)
        let failure = try #require(try await cyclicSame(n: 2).failure())
        #expect(failure.line == 4)
        #expect(failure.message.hasPrefix("assert.are.same: values differ at n"), "\(failure)")
        #expect(failure.message.contains("<cycle>"), "\(failure)")
    }

    /// A plugin whose rules set off a failing updater after `shop.add` and on the notification `closing`.
    static let ruleFailingPlugin = """
        return {
          name = "shop",
          updaters = {
            add = function(state, p) state.items = state.items or {}; state.items[#state.items + 1] = p.item end,
            audit = function(state) error("the books do not balance") end,
          },
          observers = {
            { on_dispatch = "shop.add", dispatch = { "shop.audit" } },
            { on_notification = "closing", dispatch = { "shop.audit" } },
          },
        }
        """

    @Test(arguments: ["dispatch(\"shop.add\", { item = \"tea\" })", "post(\"closing\")"])
    func whatARuleSetsOffAndFailsFailsTheCallThatSetItOff(_ call: String) async throws {
        let sandbox = try SpecSandbox(spec: "it(\"x\", function()\n  local ok = true\n  \(call)\nend)\n", plugin: Self.ruleFailingPlugin)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 3)
        #expect(failure.message.contains("shop.audit, dispatched by shop.observers["), "\(failure)")
        #expect(failure.message.contains("the books do not balance"), "\(failure)")
        // A spec that expects it can say so.
        let expecting = try SpecSandbox(
            spec: "it(\"x\", function()\n  assert.has_error(function() \(call) end)\nend)\n", plugin: Self.ruleFailingPlugin)
        #expect(try await expecting.failure() == nil)
    }
}

extension LuaSpecHostileTests {
    @Test func aSpecFileThatIsANamedPipeFailsAtOnceSayingSo() async throws {
        let sandbox = try SpecSandbox(spec: "")
        try FileManager.default.removeItem(atPath: sandbox.specFile)
        let fifo = try UnwrittenFIFO(at: sandbox.specFile)
        let cases = await fifo.returnsWithoutWaiting { sandbox.cases }
        #expect(cases.count == 1)
        let failure = try #require(cases.first?.loadFailure)
        #expect(failure.line == 1)
        #expect(failure.message == "cannot read sandbox_spec.lua: it is not a regular file (a FIFO)")
    }

    @Test func aSpecFileThatIsNotUTF8SaysSoAtItsLine() async throws {
        let sandbox = try SpecSandbox(spec: "")
        var latin1 = Data("describe(\"d\", function()\n  it(\"caf".utf8)
        latin1.append(0xE9)
        latin1.append(Data("\", function() end)\nend)\n".utf8))
        try latin1.write(to: URL(fileURLWithPath: sandbox.specFile))
        let cases = sandbox.cases
        #expect(cases.count == 1)
        let failure = try #require(cases.first?.loadFailure)
        #expect(failure.line == 2)
        #expect(failure.message == "cannot read sandbox_spec.lua: line 2 is not UTF-8 text; save the file as UTF-8")
    }
}

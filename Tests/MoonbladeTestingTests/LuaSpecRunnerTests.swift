import Foundation
import MoonbladeTestSupport
import MoonbladeTesting
import Testing

@Suite struct LuaSpecDiscoveryTests {
    @Test func casesAreNamedByTheirBlocksAndPlacedAtTheirIt() throws {
        let sandbox = try SpecSandbox(
            spec: """
                describe("shop", function()
                  describe("add", function()
                    it("adds", function() end)
                  end)
                  it("is open", function() end)
                end)
                """)
        let cases = sandbox.cases
        #expect(cases.map(\.name) == ["shop: shop add adds", "shop: shop is open"])
        #expect(cases.map(\.line) == [3, 5])
        #expect(cases.map(\.index) == [0, 1])
        #expect(cases.allSatisfy { $0.file == sandbox.specFile && $0.loadFailure == nil })
    }

    @Test func everyShippedSpecFolderYieldsCasesThatLoad() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: shippedPluginsDirectory)
            .map { "\(shippedPluginsDirectory)/\($0)" }
            .filter { FileManager.default.fileExists(atPath: "\($0)/spec") }
        #expect(!folders.isEmpty)
        for folder in folders {
            let cases = LuaSpecRunner.discover(plugin: folder)
            #expect(!cases.isEmpty, "\(folder)/spec has no cases")
            #expect(cases.allSatisfy { $0.loadFailure == nil }, "\(folder)/spec has a file that does not load")
        }
    }

    @Test func aBrokenSpecFileIsOneFailingCaseAtItsLine() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                describe("shop", function()
                  it("never loads", function()
                    local x = = 1
                  end)
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(sandbox.cases.map(\.name) == ["shop: sandbox_spec.lua"])
        #expect(failure.file == sandbox.specFile)
        #expect(failure.line == 3)
        #expect(failure.message.contains("unexpected symbol near '='"))
    }

    @Test func anErrorAtTheTopOfASpecFileIsALoadFailure() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                describe("shop", function()
                  error("not today")
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 2)
        #expect(failure.message == "not today")
    }
}

@Suite struct LuaSpecFailureTests {
    @Test func aDeepDifferenceNamesThePathAndBothValues() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("adds", function()
                  dispatch("shop.add", { item = "tea" })
                  assert.are.same({ items = { "coffee" } }, state())
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 3)
        #expect(failure.description.hasPrefix("\(sandbox.specFile):3: "))
        #expect(
            failure.message == """
                assert.are.same: values differ at items[1]
                  expected: { items = { "coffee" } }
                  actual:   { items = { "tea" } }
                """)
    }

    @Test func eachAssertionFailsAtItsLineWithTheValue() async throws {
        let assertions = [
            ("assert.are.equal(1, 2)", "assert.are.equal: values are not equal\n  expected: 1\n  actual:   2"),
            ("assert.is_true(false)", "assert.is_true: expected true, got false"),
            ("assert.is_false(nil)", "assert.is_false: expected false, got nil"),
            ("assert.is_nil({ 1 })", "assert.is_nil: expected nil, got { 1 }"),
            ("assert.has_error(function() end)", "assert.has_error: expected an error, but none was raised"),
            ("assert.has_error(function() error('wet') end, 'dry')", "assert.has_error: the error is \"wet\", expected \"dry\""),
            ("assert(false, 'plain assert')", "plain assert"),
        ]
        for (assertion, expected) in assertions {
            let sandbox = try SpecSandbox(spec: "it(\"checks\", function()\n  \(assertion)\nend)\n")
            let failure = try #require(try await sandbox.failure(), "\(assertion) passed")
            #expect(failure.line == 2, "\(assertion)")
            #expect(failure.message.hasPrefix(expected.components(separatedBy: "sandbox_spec.lua")[0]), "\(assertion): \(failure.message)")
        }
    }

    @Test func passingAssertionsPass() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("holds", function()
                  assert.are.same({ a = { 1, 2 }, b = "x" }, { b = "x", a = { 1, 2 } })
                  assert.are.equal(3, 1 + 2)
                  assert.is_true(true); assert.is_false(false); assert.is_nil(nil); assert.is_not_nil(0)
                  assert.has_error(function() error("wet floor") end, "wet floor")
                end)
                """)
        #expect(try await sandbox.failure() == nil)
    }

    @Test func anErrorRaisedByTheSpecFailsAtItsLine() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("raises", function()
                  local basket = nil
                  return basket.items
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 3)
        #expect(failure.message.contains("attempt to index a nil value (local 'basket')"))
    }

    @Test func aFailingItemFailsAtTheDispatchLineNamingThePluginLine() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("breaks", function()
                  dispatch("shop.add", { item = "tea" })
                  dispatch("shop.broken")
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 3)
        #expect(failure.message == "shop.broken: shop/plugin.lua:5: the shelf collapsed")
    }

    @Test func anUnknownItemFails() async throws {
        let sandbox = try SpecSandbox(spec: "it(\"x\", function()\n  dispatch(\"shop.nothing\")\nend)\n")
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 2)
        #expect(failure.message.contains("shop.nothing: no such item is registered"))
    }

    @Test func aStubAnswersAndRecordsItsCalls() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("prices", function()
                  local lookup = stub("prices.lookup", function(arguments) return #arguments.item end)
                  assert.are.equal(3, dispatch("shop.price", { item = "tea" }))
                  assert.are.equal(6, dispatch("shop.price", { item = "coffee" }))
                  assert.stub(lookup).was.called(2)
                  assert.stub(lookup).was.called_with({ item = "tea" })
                  assert.are.same({ item = "coffee" }, lookup.calls[2].vals[1])
                end)
                """)
        #expect(try await sandbox.failure() == nil)
    }

    @Test func aMissingOrLateStubFails() async throws {
        let missing = try SpecSandbox(spec: "it(\"x\", function()\n  dispatch(\"shop.price\", { item = \"tea\" })\nend)\n")
        let missingFailure = try #require(try await missing.failure())
        #expect(missingFailure.line == 2)
        #expect(missingFailure.message.contains("shop.price: shop/plugin.lua:8:"))

        let late = try SpecSandbox(spec: "it(\"x\", function()\n  state()\n  stub(\"prices.lookup\", function() end)\nend)\n")
        let lateFailure = try #require(try await late.failure())
        #expect(lateFailure.line == 3)
        #expect(lateFailure.message.contains("must come before the case's first dispatch or state()"))
    }

    @Test func hooksRunOutermostFirstAndAfterHooksRunAfterAFailure() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                describe("outer", function()
                  before_each(function() set_state({ items = { "outer" } }) end)
                  describe("inner", function()
                    before_each(function() dispatch("shop.add", { item = "inner" }) end)
                    after_each(function() error("after ran") end)
                    it("sees both", function()
                      assert.are.same({ items = { "outer", "inner" } }, state())
                    end)
                  end)
                end)
                """)
        let failure = try #require(try await sandbox.failure())
        #expect(failure.line == 5)
        #expect(failure.message == "after ran")
    }

    @Test func eachCaseGetsAFreshStore() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                for round = 1, 2 do
                  it("round " .. round, function()
                    assert.is_nil(state().items)
                    dispatch("shop.add", { item = "tea" })
                  end)
                end
                """)
        for specCase in sandbox.cases {
            #expect(await LuaSpecRunner().run(specCase) == .passed)
        }
    }

    @Test func aSpecCannotYieldByItselfNorDispatchOutsideACase() async throws {
        let yielding = try SpecSandbox(spec: "it(\"x\", function()\n  coroutine.yield()\nend)\n")
        let yieldFailure = try #require(try await yielding.failure())
        #expect(yieldFailure.line == 2)  // the line that yielded, as for a side effect
        #expect(yieldFailure.message.contains("a spec cannot yield by itself"))

        let topLevel = try SpecSandbox(spec: "dispatch(\"shop.add\", { item = \"tea\" })\n")
        let topLevelFailure = try #require(try await topLevel.failure())
        #expect(topLevelFailure.line == 1)
        #expect(topLevelFailure.message.contains("dispatch can only be called inside it, before_each or after_each"))
    }

    // The loops run under a small budget: spinning through the default one would hold a thread of
    // the shared pool for a second or more and starve the other tests.
    @Test(.hangGuard) func aRunawayLoopInASpecFailsWithALimitErrorAtItsLine() async throws {
        let sandbox = try SpecSandbox(spec: "it(\"spins\", function()\n  dispatch(\"shop.add\", { item = \"tea\" })\n  while true do end\nend)\n")
        let failure = try #require(try await sandbox.failure(runner: LuaSpecRunner(instructionBudget: 1_000_000)))
        #expect(failure.line == 3)
        #expect(failure.message.contains("instruction budget"), "\(failure.message)")
    }

    @Test(.hangGuard) func aRunawayLoopInAStubFailsTheDispatchNamingTheStubLine() async throws {
        let sandbox = try SpecSandbox(
            spec: """
                it("prices", function()
                  stub("prices.lookup", function()
                    while true do end
                  end)
                  dispatch("shop.price", { item = "tea" })
                end)
                """)
        let failure = try #require(try await sandbox.failure(runner: LuaSpecRunner(instructionBudget: 1_000_000)))
        #expect(failure.line == 5)
        #expect(failure.message.contains("shop/spec/sandbox_spec.lua:3:"), "\(failure.message)")
        #expect(failure.message.contains("instruction budget"), "\(failure.message)")
    }

    @Test func aRunnerHasABudgetUnlessToldOtherwise() {
        #expect(LuaSpecRunner().instructionBudget == LuaSpecRunner.defaultInstructionBudget)
        #expect(LuaSpecRunner.defaultInstructionBudget == 100_000_000)
        #expect(LuaSpecRunner().sideEffectTimeLimit == .seconds(30))
    }

    @Test func setStateOnAStartedStoreSettlesWhatItSetsOff() async throws {
        // The audit (a side effect a state-change rule starts) has called its stub by the time
        // set_state returns, as after a dispatch.
        let plugin = """
            return {
              name = "shop",
              updaters = {},
              side_effects = {
                audit = function(ctx) ctx.deps.audit.write { count = #ctx.state().items } end,
              },
              observers = {
                { on_state_change = function(old, new) return #(old.items or {}) ~= #(new.items or {}) end,
                  dispatch = { "shop.audit" } },
              },
            }
            """
        let sandbox = try SpecSandbox(
            spec: """
                it("audits", function()
                  local writes = stub("audit.write", function() end)
                  state()
                  set_state({ items = { "tea" } })
                  assert.stub(writes).was.called_with({ count = 1 })
                end)
                """, plugin: plugin)
        #expect(try await sandbox.failure() == nil)
    }

    @Test func aFailureIsReportedToSwiftTestingAtTheSpecLine() async throws {
        let sandbox = try SpecSandbox(spec: "it(\"x\", function()\n\n  assert.are.equal(1, 2)\nend)\n")
        let failure = try #require(try await sandbox.failure())
        #expect(failure.sourceLocation.line == 3)
        #expect(failure.sourceLocation.filePath == sandbox.specFile)
    }
}

import Foundation
import MoonbladeTesting
import Testing

/// The busted-level parts of the spec DSL: negated and new assertions, spies and stubs, pending
/// cases, setup/teardown/finally, post, and the selection by filter and tags.
@Suite struct LuaSpecBustedTests {
    /// Runs a spec of one case and returns its result.
    private func result(of spec: String, plugin: String = SpecSandbox.shopPlugin) async throws -> LuaSpecResult {
        let sandbox = try SpecSandbox(spec: spec, plugin: plugin)
        let cases = sandbox.cases
        try #require(cases.count == 1, "\(cases.map(\.name))")
        return await LuaSpecRunner().run(cases[0])
    }

    private func failing(_ body: String) async throws -> LuaSpecFailure? {
        if case .failed(let failure) = try await result(of: "it(\"checks\", function()\n  \(body)\nend)\n") { return failure }
        return nil
    }

    @Test func theNewAssertionsHoldWhereTheyShould() async throws {
        let holding = [
            "assert.are_not.same({ 1 }, { 2 })", "assert.are_not.equal({}, {})", "assert.is_not_nil(false)",
            "assert.matches('^ab', 'abc')", "assert.matches('.', 'a.b', 1, true)", "assert.matches('1', 12)",
            "assert.truthy(0)", "assert.falsy(nil)", "assert.is_not.truthy(false)", "assert.near(1, 1.05, 0.1)",
            "assert.has_no.errors(function() end)", "assert.has_error(function() error('wet floor') end, 'wet floor')",
            "assert.has_error(function() error({ code = 7 }) end, { code = 7 })",
            "assert.error_matches(function() error('wet floor') end, '^wet')",
            "assert.is.True(true)", "assert.is_string('x')", "assert.is_not.number('1')",
        ]
        for body in holding {
            #expect(try await failing(body) == nil, "\(body)")
        }
    }

    @Test func eachNewAssertionFailsAtItsLineSayingWhy() async throws {
        let cases = [
            ("assert.are_not.same({ 1 }, { 1 })", "assert.are_not.same: values are the same"),
            ("assert.matches('%d+', 'abc')", "assert.matches: \"abc\" does not match \"%d+\""),
            ("assert.truthy(nil)", "assert.truthy: expected a truthy value, got nil"),
            ("assert.falsy(0)", "assert.falsy: expected a falsy value, got 0"),
            ("assert.near(1, 1.2, 0.1)", "assert.near: 1.2 is not within 0.1 of 1"),
            ("assert.has_no.errors(function() error('boom') end)", "assert.has_no.errors: expected no error, got \"boom\""),
            ("assert.has_error(function() error('wet floor') end, 'wet')", "assert.has_error: the error is \"wet floor\", expected \"wet\""),
            ("assert.error_matches(function() error('wet') end, 'w.t', nil, true)", "assert.error_matches: the error \"wet\" does not match \"w.t\""),
            ("assert.is_true(false, 'the flag must be set')", "the flag must be set\nassert.is_true: expected true, got false"),
            ("assert.near('x', 1, 1)", "assert.near: needs three numbers"),
        ]
        for (body, expected) in cases {
            let failure = try #require(try await failing(body), "\(body) passed")
            #expect(failure.line == 2, "\(body)")
            #expect(failure.message.hasPrefix(expected), "\(body): \(failure.message)")
        }
    }

    @Test func anUnknownAssertionFailsNamingItAndTheKnownOnes() async throws {
        let failure = try #require(try await failing("assert.are.sme({}, {})"))
        #expect(failure.line == 2)
        #expect(failure.message.hasPrefix("unknown assertion assert.are.sme (known: "), "\(failure.message)")
        #expect(failure.message.contains("same"))
        let spyOnly = try #require(try await failing("assert.was.called(1)"))
        #expect(spyOnly.message == "assert.was.called: must follow assert.spy(s) or assert.stub(s)")
        let notASpy = try #require(try await failing("assert.spy(print).was.called()"))
        #expect(notASpy.message.hasPrefix("assert.spy needs a spy or stub"), "\(notASpy.message)")
    }

    @Test func spiesAndStubsRecordTheirCalls() async throws {
        let spec = """
            it("spies", function()
              local s = spy.new(function(a, b) return a + b end)
              assert.are.equal(3, s(1, 2))
              assert.spy(s).was.called(1)
              assert.spy(s).was.called_with(1, 2)
              assert.spy(s).was_not.called_with(2, 1)
              assert.spy(s).returned_with(3)
              local t = { f = function(x) return x * 2 end }
              local on = spy.on(t, "f")
              assert.are.equal(8, t.f(4))
              assert.spy(on).was.called_with(4)
              on:revert()
              assert.are.equal("function", type(t.f))
              local g = stub(t, "g", 5)
              assert.are.equal(5, t.g())
              g:returns(6)
              assert.are.equal(6, t.g())
              assert.stub(g).was.called(2)
              assert.stub(g).was.called_at_least(1)
              local lookup = stub("prices.lookup", function(arguments) return #arguments.item end)
              assert.are.equal(3, dispatch("shop.price", { item = "tea" }))
              assert.stub(lookup).was.called_with({ item = "tea" })
            end)
            """
        #expect(try await result(of: spec) == .passed)
        let failure = try #require(try await failing("local s = spy.new()\n  s(1)\n  assert.spy(s).was.called_with(2)"))
        #expect(failure.line == 4)
        #expect(failure.message == "assert.spy(s).was.called_with: no call had (2); the last had (1)")
        let count = try #require(try await failing("local s = spy.new()\n  assert.spy(s).was.called(1)"))
        #expect(count.message == "assert.spy(s).was.called: expected calls: 1, called 0 times")
        let badStub = try #require(try await failing("stub(\"prices.lookup\", 42)"))
        #expect(badStub.line == 2)
        #expect(badStub.message.hasPrefix("stub(\"prices.lookup\", …) needs a function"), "\(badStub.message)")
    }

    @Test func pendingCasesArePendingNotPassed() async throws {
        #expect(try await result(of: "pending(\"later\")\n") == .pending)
        #expect(try await result(of: "it(\"later\")\n") == .pending)
    }

    @Test func setupBeforeBodyFinallyAfterTeardownRunInOrderEvenAfterAFailure() async throws {
        let spec = """
            local order = {}
            describe("block", function()
              setup(function() order[#order + 1] = "setup" end)
              before_each(function() order[#order + 1] = "before" end)
              after_each(function() order[#order + 1] = "after" end)
              teardown(function()
                order[#order + 1] = "teardown"
                error(table.concat(order, " "))
              end)
              it("fails", function()
                finally(function() order[#order + 1] = "finally" end)
                order[#order + 1] = "body"
                error("first")
              end)
            end)
            """
        guard case .failed(let first) = try await result(of: spec) else {
            Issue.record("the case passed")
            return
        }
        #expect(first.message == "first")  // the first error is the case's; the rest still ran
        let ordered = spec.replacingOccurrences(of: "error(\"first\")", with: "")
        guard case .failed(let teardown) = try await result(of: ordered) else {
            Issue.record("the teardown's error was lost")
            return
        }
        #expect(teardown.message == "setup before body finally after teardown")
    }

    @Test func finallyOutsideACaseFails() async throws {
        let failure = try #require(try await failing("local f = finally\n  coroutine.wrap(function() end)()\n  finally(42)"))
        #expect(failure.message.contains("finally needs a function"))
    }

    @Test func postFiresNotificationRules() async throws {
        let plugin = """
            return {
              name = "shop",
              updaters = {
                restock = function(state, p) state.stock = (state.stock or 0) + p.count end,
              },
              side_effects = {},
              observers = {
                { on_notification = "delivery",
                  dispatch = { { "shop.restock", function(delivery) return { count = delivery.count } end } } },
              },
            }
            """
        let spec = """
            it("restocks on a delivery", function()
              post("delivery", { count = 3 })
              post("something else")
              assert.are.equal(3, state().stock)
            end)
            """
        #expect(try await result(of: spec, plugin: plugin) == .passed)
        let outside = try SpecSandbox(spec: "post(\"delivery\")\n", plugin: plugin)
        guard case .failed(let failure) = await LuaSpecRunner().run(outside.cases[0]) else {
            Issue.record("post outside a case passed")
            return
        }
        #expect(failure.message.contains("post can only be called inside it"))
    }

    @Test func casesAreChosenByFilterAndTags() throws {
        let sandbox = try SpecSandbox(
            spec: """
                describe("cart #core", function()
                  it("adds", function() end)
                  it("syncs #slow", function() end)
                end)
                it("prints", function() end)
                """)
        let cases = sandbox.cases
        #expect(cases.map(\.tags) == [["core"], ["core", "slow"], []])
        func chosen(_ selection: LuaSpecSelection) -> [String] {
            cases.filter(selection.includes).map { $0.names.last! }
        }
        #expect(chosen(try LuaSpecSelection(filter: "add|print")) == ["adds", "prints"])
        #expect(chosen(try LuaSpecSelection(tags: ["#slow"])) == ["syncs #slow"])
        #expect(chosen(try LuaSpecSelection(tags: ["core"], excludedTags: ["slow"])) == ["adds"])
        #expect(throws: LuaSpecSelectionError.self) { try LuaSpecSelection(filter: "(") }
    }
}

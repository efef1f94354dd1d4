import Foundation
import MoonbladeTesting
import Testing

/// A spec that uses only what Moonblade shares with busted gets the same verdict for every case under
/// both: Debian's `lua-busted` (installed by Scripts/bootstrap) runs the same file.
@Suite struct BustedAgreementTests {
    /// `busted` on the PATH, if installed.
    static let busted: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
        .split(separator: ":").map { "\($0)/busted" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Cases that hold and cases that fail for each shared assertion, modifier, spy and hook.
    static let sharedSpec = """
        describe("same", function()
          it("holds for equal tables", function() assert.are.same({ a = { 1, 2 } }, { a = { 1, 2 } }) end)
          it("fails for different tables", function() assert.are.same({ 1 }, { 2 }) end)
          it("negated holds", function() assert.are_not.same({ 1 }, { 2 }) end)
          it("negated fails", function() assert.are_not.same({ 1 }, { 1 }) end)
        end)
        describe("equal", function()
          it("holds for numbers", function() assert.are.equal(3, 1 + 2) end)
          it("fails for two tables", function() assert.are.equal({}, {}) end)
          it("negated holds for two tables", function() assert.are_not.equal({}, {}) end)
        end)
        describe("kinds", function()
          it("true fails for 1", function() assert.is_true(1) end)
          it("false fails for nil", function() assert.is_false(nil) end)
          it("not nil holds for false", function() assert.is_not_nil(false) end)
          it("truthy holds for 0", function() assert.truthy(0) end)
          it("truthy fails for nil", function() assert.truthy(nil) end)
          it("falsy fails for 0", function() assert.falsy(0) end)
          it("string holds", function() assert.is_string("x") end)
          it("number fails for a string", function() assert.is_number("1") end)
        end)
        describe("matches", function()
          it("holds", function() assert.matches("^ab", "abc") end)
          it("fails", function() assert.matches("%d+", "abc") end)
          it("plain holds", function() assert.matches(".", "a.b", 1, true) end)
          it("plain fails", function() assert.matches("a.c", "abc", 1, true) end)
          it("a number is matched as text", function() assert.matches("1", 12) end)
        end)
        describe("near", function()
          it("holds", function() assert.near(1, 1.05, 0.1) end)
          it("fails", function() assert.near(1, 1.2, 0.1) end)
        end)
        describe("errors", function()
          it("has_error holds", function() assert.has_error(function() error("boom") end) end)
          it("has_error compares the message without its place", function()
            assert.has_error(function() error("wet floor") end, "wet floor")
          end)
          it("has_error fails for part of the message", function()
            assert.has_error(function() error("wet floor") end, "wet")
          end)
          it("has_error fails without an error", function() assert.has_error(function() end) end)
          it("has_error compares tables deeply", function()
            assert.has_error(function() error({ code = 7 }) end, { code = 7 })
          end)
          it("has_no errors holds", function() assert.has_no.errors(function() end) end)
          it("has_no errors fails", function() assert.has_no.errors(function() error("x") end) end)
          it("error_matches holds", function() assert.error_matches(function() error("wet floor") end, "^wet") end)
          it("error_matches fails", function() assert.error_matches(function() error("wet") end, "dry") end)
          it("error_matches plain fails", function()
            assert.error_matches(function() error("wet") end, "w.t", nil, true)
          end)
        end)
        describe("spies", function()
          it("counts calls", function()
            local s = spy.new(function() end)
            s(1); s(2)
            assert.spy(s).was.called(2)
            assert.spy(s).was.called_with(2)
            assert.spy(s).was_not.called_with(3)
          end)
          it("fails a wrong count", function()
            local s = spy.new(function() end)
            assert.spy(s).was.called(1)
          end)
          it("fails a missing call", function()
            local s = spy.new(function() end)
            s(1)
            assert.spy(s).was.called_with(2)
          end)
          it("spies on a table", function()
            local t = { f = function(x) return x * 2 end }
            spy.on(t, "f")
            assert.are.equal(8, t.f(4))
            assert.spy(t.f).was.called_with(4)
          end)
          it("stubs a table", function()
            local t = {}
            stub(t, "g", 5)
            assert.are.equal(5, t.g())
            assert.stub(t.g).was.called(1)
          end)
        end)
        describe("hooks", function()
          local count = 0
          before_each(function() count = count + 1 end)
          it("sees before_each", function() assert.is_true(count > 0) end)
          it("fails through finally", function() finally(function() error("late") end) end)
          pending("is pending")
          it("fails an unknown assertion", function() assert.are.sme(1, 1) end)
        end)
        """

    /// ok / fail / pending for each case name under busted's TAP output.
    private static func bustedVerdicts(of file: String) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: busted!)
        process.arguments = ["-o", "TAP", file]
        process.currentDirectoryURL = URL(fileURLWithPath: file).deletingLastPathComponent()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var verdicts: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let match = line.wholeMatch(of: /(ok|not ok) \d+ - (# SKIP )?(.*)/) else { continue }
            verdicts[String(match.3)] = match.2 != nil ? "pending" : match.1 == "ok" ? "ok" : "fail"
        }
        return verdicts
    }

    /// Odd corners of the shared assertions and of the DSL: numbers of two subtypes, NaN, cycles, keys
    /// that are tables, metatables, error objects that are not strings, raising bodies, blocks declared
    /// inside a running case.
    static let oddSpec = """
        describe("odd same", function()
          it("integer and float are same", function() assert.are.same(1, 1.0) end)
          it("integer and float are equal", function() assert.are.equal(1, 1.0) end)
          it("nan is not equal to itself", function() assert.are.equal(0/0, 0/0) end)
          it("nan is not same as itself", function() assert.are.same(0/0, 0/0) end)
          it("nan in tables", function() assert.are.same({ 0/0 }, { 0/0 }) end)
          it("a trailing nil", function() assert.are.same({ 1, 2 }, { 1, 2, nil }) end)
          it("cycles", function()
            local a, b = {}, {}
            a.a, b.a = a, b
            assert.are.same(a, b)
          end)
          it("cycles that differ", function()
            local a, b = { n = 1 }, { n = 2 }
            a.a, b.a = a, b
            assert.are.same(a, b)
          end)
          it("distinct functions", function() assert.are.same(function() end, function() end) end)
          it("a string and a number", function() assert.are.same("1", 1) end)
          it("table keys", function() assert.are.same({ [{}] = 1 }, { [{}] = 1 }) end)
          it("nested empty tables", function() assert.are.same({ a = {} }, { a = {} }) end)
          it("an extra key", function() assert.are.same({ a = 1 }, { a = 1, b = 2 }) end)
          it("negative zero", function() assert.are.same(0.0, -0.0) end)
          it("metatables are not compared", function() assert.are.same(setmetatable({}, {}), {}) end)
        end)
        describe("odd kinds", function()
          it("truthy of false", function() assert.truthy(false) end)
          it("falsy of nil", function() assert.falsy(nil) end)
          it("is_nil of false", function() assert.is_nil(false) end)
          it("is_not_true of 1", function() assert.is_not_true(1) end)
          it("is_boolean of nil", function() assert.is_boolean(nil) end)
          it("a message that is not a string", function() assert.is_true(false, 42) end)
          it("plain assert of false", function() assert(false) end)
          it("plain assert of nil with a message", function() assert(nil, "why") end)
        end)
        describe("odd errors", function()
          it("near at the edge", function() assert.near(1, 1.5, 0.5) end)
          it("near with a negative tolerance", function() assert.near(1, 1, -1) end)
          it("a number error", function() assert.has_error(function() error(42) end, 42) end)
          it("a nil error", function() assert.has_error(function() error(nil) end) end)
          it("a table error without a value", function() assert.has_error(function() error({}) end) end)
          it("has_error of a non-function", function() assert.has_error(5) end)
          it("error_matches a table error", function() assert.error_matches(function() error({}) end, "x") end)
          it("error_matches a number error", function() assert.error_matches(function() error(42) end, "42") end)
          it("an error at level 2", function() assert.has_error(function() error("m", 2) end, "m") end)
          it("matches nil", function() assert.matches("a", nil) end)
        end)
        describe("odd structure", function()
          it("a raising body", function() error("raised") end)
          it("a body raising a table", function() error({ code = 1 }) end)
          it("a body raising nothing", function() error() end)
          it("an empty body", function() end)
          describe("deep", function() describe("deeper", function()
            it("passes", function() assert.is_true(true) end)
          end) end)
          it("it inside it", function() it("inner", function() end) end)
          it("describe inside it", function() describe("inner", function() end) end)
          it("before_each inside it", function() before_each(function() end) end)
        end)
        """

    /// ok / fail / pending for each case of `spec` under Moonblade's runner and busted's.
    private static func verdicts(of spec: String) async throws -> (ours: [String: String], theirs: [String: String]) {
        let sandbox = try SpecSandbox(spec: spec)
        var ours: [String: String] = [:]
        for specCase in sandbox.cases {
            let verdict: String
            switch await LuaSpecRunner().run(specCase) {
            case .passed: verdict = "ok"
            case .failed: verdict = "fail"
            case .pending: verdict = "pending"
            }
            ours[specCase.names.joined(separator: " ")] = verdict
        }
        return (ours, try bustedVerdicts(of: sandbox.specFile))
    }

    @Test(.enabled(if: busted != nil, "busted is not installed (Scripts/bootstrap installs lua-busted)"))
    func sharedAssertionsGiveBustedsVerdicts() async throws {
        let (ours, theirs) = try await Self.verdicts(of: Self.sharedSpec)
        #expect(ours.count == 41)
        #expect(Set(ours.values) == ["ok", "fail", "pending"])
        expectAgreement(ours, theirs)
    }

    @Test(.enabled(if: busted != nil, "busted is not installed (Scripts/bootstrap installs lua-busted)"))
    func oddCornersGiveBustedsVerdicts() async throws {
        let (ours, theirs) = try await Self.verdicts(of: Self.oddSpec)
        #expect(ours.count == 41)
        #expect(Set(ours.values) == ["ok", "fail"])
        expectAgreement(ours, theirs)
    }

    private func expectAgreement(
        _ ours: [String: String], _ theirs: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(theirs.count == ours.count, "busted ran \(theirs.count) cases", sourceLocation: sourceLocation)
        for (name, verdict) in ours.sorted(by: { $0.key < $1.key }) {
            #expect(
                theirs[name] == verdict, "\(name): busted \(theirs[name] ?? "did not run it"), moonblade \(verdict)",
                sourceLocation: sourceLocation)
        }
    }
}

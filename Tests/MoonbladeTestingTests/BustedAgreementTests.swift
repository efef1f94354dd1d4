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

    @Test(.enabled(if: busted != nil, "busted is not installed (Scripts/bootstrap installs lua-busted)"))
    func sharedAssertionsGiveBustedsVerdicts() async throws {
        let sandbox = try SpecSandbox(spec: Self.sharedSpec)
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
        let theirs = try Self.bustedVerdicts(of: sandbox.specFile)
        #expect(ours.count == 41)
        #expect(Set(ours.values) == ["ok", "fail", "pending"])
        #expect(theirs.count == ours.count, "busted ran \(theirs.count) cases")
        for (name, verdict) in ours.sorted(by: { $0.key < $1.key }) {
            #expect(theirs[name] == verdict, "\(name): busted \(theirs[name] ?? "did not run it"), moonblade \(verdict)")
        }
    }
}

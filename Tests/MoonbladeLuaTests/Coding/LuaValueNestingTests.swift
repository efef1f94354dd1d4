import MoonbladeLua
import MoonbladeTestSupport
import Testing

/// Reading Lua data as a `LuaValue` (results of `run`, payloads a plugin dispatches, side effect
/// results) follows tables as deep as the coders do, and no deeper: a million nested tables overflowed
/// the thread's stack and crashed the process.
@Suite("LuaValue nesting")
struct LuaValueNestingTests {
    /// Lua code that returns `depth` tables nested one in the other.
    static func nested(_ depth: Int) -> String {
        "local t = {} for i = 2, \(depth) do t = { t } end return t"
    }

    @Test func tablesNestedAsDeepAsTheCodersFollowAreRead() throws {
        let vm = try LuaVM()
        var value = try #require(try vm.run(Self.nested(512)).first)
        var depth = 0
        while case .table(let entries) = value {
            depth += 1
            value = entries[.integer(1)] ?? .nil
        }
        #expect(depth == 512)
    }

    @Test(arguments: [513, 1_000_000])
    func deeperTablesAreAnErrorNotACrash(depth: Int) throws {
        let vm = try LuaVM()
        let error = expectLuaError { _ = try vm.run(Self.nested(depth)) }
        #expect(error?.kind == .conversion)
        #expect(error?.message == "a table nested more than 512 levels deep has no data form", "\(String(describing: error))")
        #expect(try vm.run("return 1 + 1") == [2])
    }
}

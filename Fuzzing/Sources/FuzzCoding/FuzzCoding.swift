import CustomDump
import FuzzSupport
import MoonbladeHost
import MoonbladeLua

/// One fuzz input: a random Lua value decoded into several Swift types, or a random Swift value
/// taken through Lua and back.
func fuzzCoding(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzBytes(start: start, count: count)
    if input.bool() {
        CodingRoundTrips.checkLuaValue(input.luaExpression())
    } else {
        CodingRoundTrips.checkSwiftValue(input.sample())
    }
    return 0
}

/// `LuaEncoder`/`LuaDecoder` on random values: what decodes encodes back to the same value, every
/// refusal is a `DecodingError` (or `EncodingError`) whose message names a place, nothing crashes.
enum CodingRoundTrips {
    /// One VM for every input (each check leaves its stack as it found it).
    nonisolated(unsafe) static let vm = try! LuaVM()

    static func checkLuaValue(_ expression: String) {
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        do {
            try stack.load("return " + expression, chunkName: "=fuzz")
            try stack.call(results: 1)
        } catch {
            fuzzFinding("the generated Lua does not run: \(error)\n\(expression)")
        }
        decodeAndBack(JSONValue.self, expression)
        decodeAndBack(CodingSample.self, expression)
        decodeAndBack([String: Int].self, expression)
        decodeAndBack([Double].self, expression)
        decodeAndBack([String: [Int8?]].self, expression)
        decodeAndBack(UInt.self, expression)
        decodeAndBack(String.self, expression)
        decodeAndBack(Bool?.self, expression)
    }

    static func checkSwiftValue(_ value: CodingSample) {
        let stack = vm.stack
        let base = stack.top
        defer { stack.top = base }
        do {
            try LuaEncoder().push(value, onto: stack)
        } catch let error as EncodingError {
            // Only an unsigned integer beyond Lua's 64-bit signed range is refused.
            guard LuaEncoder.describe(error).contains("uint64") else {
                fuzzFinding("a refusal to encode \(value): \(LuaEncoder.describe(error))")
            }
            return
        } catch {
            fuzzFinding("encoding threw \(type(of: error)), not an EncodingError: \(error)")
        }
        do {
            let back = try LuaDecoder().decode(CodingSample.self, from: stack, at: -1)
            guard same(back, value) else {
                fuzzFinding("round trip changed the value:\n\(value)\n\(back)")
            }
        } catch {
            fuzzFinding("what was encoded does not decode: \(error)\n\(value)")
        }
    }

    /// Equal, or dumped alike: NaN is not equal to itself, and a dump sorts dictionaries' keys.
    static func same<T: Equatable>(_ a: T, _ b: T) -> Bool {
        a == b || String(customDumping: a) == String(customDumping: b)
    }

    /// Decodes the value on top of the stack as `T`; if it decodes, pushes it back and decodes it again.
    static func decodeAndBack<T: Codable & Equatable>(_ type: T.Type, _ expression: String) {
        let stack = vm.stack
        let decoded: T
        do {
            decoded = try LuaDecoder().decode(T.self, from: stack, at: -1)
        } catch let error as DecodingError {
            guard !LuaDecoder.describe(error).isEmpty else { fuzzFinding("a refusal with no message: \(error)") }
            return
        } catch {
            fuzzFinding("decoding \(T.self) threw \(Swift.type(of: error)), not a DecodingError: \(error)\n\(expression)")
        }
        let base = stack.top
        defer { stack.top = base }
        do {
            try LuaEncoder().push(decoded, onto: stack)
            let again = try LuaDecoder().decode(T.self, from: stack, at: -1)
            guard same(again, decoded) else {
                fuzzFinding("\(T.self) changed going back through Lua:\n\(decoded)\n\(again)\n\(expression)")
            }
        } catch {
            fuzzFinding("\(T.self) decoded from Lua does not go back: \(error)\n\(decoded)\n\(expression)")
        }
    }
}

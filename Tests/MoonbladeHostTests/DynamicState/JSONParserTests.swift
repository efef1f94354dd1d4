import Foundation
import MoonbladeHost
import Testing

/// `JSONValue(json:)` reads exactly what the text says, and refuses what it could only guess, with
/// the line, column and path of the fault.
@Suite("JSONValue(json:): strict JSON text")
struct JSONParserTests {
    @Test(
        arguments: [
            ("1", .integer(1)),
            ("1.0", .double(1.0)),
            ("-0", .integer(0)),
            ("1e2", .double(100)),
            ("1E+2", .double(100)),
            ("9007199254740993", .integer(9_007_199_254_740_993)),
            ("-9223372036854775808", .integer(.min)),
            ("9223372036854775807", .integer(.max)),
            ("1.5e-400", .double(0)),
            ("0.1", .double(0.1)),
            (#""\ud83d\ude00 \u00e9 \/ \b\f\n\r\t \u0000""#, .string("😀 é / \u{8}\u{c}\n\r\t \u{0}")),
            ("\u{FEFF} {\"a\": [null, {}, [], [{}]]} \n", ["a": [nil, .object([:]), .array([]), [.object([:])]]]),
            (#"{"1": 1, "": 2, "a.b": {"c": null}}"#, ["1": 1, "": 2, "a.b": ["c": nil]]),
            (" \t\r\n true ", .bool(true)),
            // Where Foundation's reader differs (found by Fuzzing/, FUZZING.md): a U+FEFF that starts a
            // string or key is a character to keep, not a byte order mark to drop; a number with many
            // digits is rounded once from its whole text (as strtod), not from a 38-digit Decimal.
            ("{\"\u{FEFF}k\": \"\u{FEFF}v\"}", ["\u{FEFF}k": "\u{FEFF}v"]),
            (String(repeating: "2", count: 29) + "." + String(repeating: "2", count: 86), .double(2.2222222222222224e+28)),
        ] as [(String, JSONValue)])
    func readsWhatTheTextSays(_ text: String, _ expected: JSONValue) throws {
        // Equality tells the kinds apart: `.integer(1)` is not `.double(1.0)`.
        #expect(try JSONValue(json: text) == expected)
    }

    @Test func negativeZeroStaysAFloatWithItsSign() throws {
        guard case .double(let zero) = try JSONValue(json: "-0.0") else { Issue.record("not a float"); return }
        #expect(zero.sign == .minus)
        #expect(JSONValue.double(zero).jsonString() == "-0.0")
    }

    @Test(
        arguments: [
            ("", "line 1, column 1: expected a JSON value, found the end of the text"),
            ("   \n  ", "line 2, column 3: expected a JSON value, found the end of the text"),
            (#"{"a": 1} x"#, "line 1, column 10: expected the end of the text after the value, found 'x'"),
            ("{\"a\": 1}\n{\"b\": 2}", "line 2, column 1: expected the end of the text after the value, found '{'"),
            (#"{"a": 1, "a": 2}"#, #"line 1, column 10: duplicate key "a""#),
            (#"{"x": {"a": 1, "a": 1}}"#, #"line 1, column 16 (at x): duplicate key "a""#),
            (
                #"{"big": 123456789012345678901234567890}"#,
                "line 1, column 9 (at big): the integer 123456789012345678901234567890 does not fit in 64 bits (write it as a string to keep every digit)"
            ),
            (
                "[9223372036854775808]",
                "line 1, column 2 (at [1]): the integer 9223372036854775808 does not fit in 64 bits (write it as a string to keep every digit)"
            ),
            (#"{"e": [1, 1e400]}"#, "line 1, column 11 (at e[2]): the number 1e400 is too large for a 64-bit float"),
            ("-1e400", "line 1, column 1: the number -1e400 is too large for a 64-bit float"),
            (#"{"s": "\ud800"}"#, #"line 1, column 8 (at s): unpaired surrogate \ud800 in a string (not a character)"#),
            (#"["\udc00\ud800"]"#, #"line 1, column 3 (at [1]): unpaired surrogate \udc00 in a string (not a character)"#),
            (#"["\ud800\u0041"]"#, #"line 1, column 3 (at [1]): unpaired surrogate \ud800 in a string (not a character)"#),
            (#"["\u12"]"#, #"line 1, column 3 (at [1]): expected four hex digits after \u"#),
            (#"["\u+123"]"#, #"line 1, column 3 (at [1]): expected four hex digits after \u"#),
            (#"["\x"]"#, #"line 1, column 3 (at [1]): unknown escape \x in a string"#),
            ("[\"a\tb\"]", #"line 1, column 4 (at [1]): a control character (\u0009) in a string must be escaped"#),
            (#"{"a": "open"#, "line 1, column 7 (at a): the string has no closing quote"),
            ("[01]", "line 1, column 3: expected ',' or ']' in the array, found '1'"),
            ("[1.]", "line 1, column 4 (at [1]): expected a digit after the decimal point, found ']'"),
            ("[.5]", "line 1, column 2 (at [1]): expected a JSON value, found '.'"),
            ("[1e]", "line 1, column 4 (at [1]): expected a digit in the exponent, found ']'"),
            ("[-]", "line 1, column 3 (at [1]): expected a digit in the number, found ']'"),
            ("[NaN]", "line 1, column 2 (at [1]): expected a JSON value, found 'N'"),
            ("[Infinity]", "line 1, column 2 (at [1]): expected a JSON value, found 'I'"),
            ("[1,]", "line 1, column 4 (at [2]): expected a JSON value, found ']'"),
            (#"{"a":1,}"#, "line 1, column 8: expected a key in quotes, found '}'"),
            ("{a: 1}", "line 1, column 2: expected a key in quotes, found 'a'"),
            (#"{"a" 1}"#, "line 1, column 6: expected ':' after the key, found '1'"),
            ("[tru]", "line 1, column 2 (at [1]): expected a JSON value, found 't'"),
            (#"{"odd key": {"list": [1, {"x": nul}]}}"#, #"line 1, column 32 (at ["odd key"].list[2].x): expected a JSON value, found 'n'"#),
        ] as [(String, String)])
    func refusesWhatItCouldOnlyGuess(_ text: String, _ message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(json: text) }
        do {
            _ = try JSONValue(json: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(
        arguments: [
            ([0x22, 0xFF, 0xFE, 0x22] as [UInt8], "line 1, column 1: the string is not valid UTF-8"),
            ([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D], "line 1, column 6 (at a): the string is not valid UTF-8"),
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "line 1, column 1: the string is not valid UTF-8"),
            ([0xFF, 0x31], "line 1, column 1: expected a JSON value, found byte 0xFF"),
            ([0x5B, 0x31, 0x5D, 0x00], "line 1, column 4: expected the end of the text after the value, found byte 0x0"),
        ] as [([UInt8], String)])
    func refusesBytesThatAreNotUTF8(_ bytes: [UInt8], _ message: String) {
        do {
            _ = try JSONValue(json: bytes)
            Issue.record("read \(bytes)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func tenThousandLevelsAreRefusedWithoutExhaustingTheStack() {
        for open in ["[", "{\"a\":"] {
            let close = open == "[" ? "]" : "}"
            let text = String(repeating: open, count: 10_000) + String(repeating: close, count: 10_000)
            do {
                _ = try JSONValue(json: text)
                Issue.record("read 10,000 levels")
            } catch {
                #expect(error.reason == "nested more than 255 levels deep")
                #expect(error.column == 1 + 255 * open.utf8.count)
            }
        }
        let deepest = String(repeating: "[", count: 255) + String(repeating: "]", count: 255)
        #expect(throws: Never.self) { try JSONValue(json: deepest) }
    }

    @Test func aHugeStringIsReadWhole() throws {
        let long = String(repeating: "é\u{1F600}x", count: 300_000)
        #expect(try JSONValue(json: JSONValue.string(long).jsonString()) == .string(long))
    }

    @Test func whatJSONValueWritesItReadsBackWithTheSameKinds() throws {
        let value: JSONValue = [
            "floats": [1.0, -0.0, 0.1, 1e300, 5e-324, .double(Double(Int64.max))],
            "integers": [.integer(.max), .integer(.min), 0, -1],
            "strings": ["", "\u{0}\u{1F}\"\\/", "😀", "\u{7F}\u{80}"],
            "empty": [.array([]), .object([:]), ["": .object([:])]],
            "nulls": [nil, ["k": nil]],
        ]
        for pretty in [false, true] {
            let back = try JSONValue(json: value.jsonString(pretty: pretty))
            #expect(back == value)
            #expect(back.jsonString() == value.jsonString())
        }
    }

    /// Paths are written as the Lua decoders write theirs: a key that is a Lua keyword, or no
    /// identifier, in brackets and quotes (`t.end` would not be Lua), identifiers after a dot.
    @Test(
        arguments: [
            (#"{"end": [1, tru]}"#, #"line 1, column 13 (at ["end"][2]): expected a JSON value, found 't'"#),
            (#"{"a": {"nil": {"b": nul}}}"#, #"line 1, column 21 (at a["nil"].b): expected a JSON value, found 'n'"#),
            (#"{"a-b": {"function": 1, "x y": nul}}"#, #"line 1, column 32 (at ["a-b"]["x y"]): expected a JSON value, found 'n'"#),
            (#"{"_ok1": {"1st": {"ende": nul}}}"#, #"line 1, column 27 (at _ok1["1st"].ende): expected a JSON value, found 'n'"#),
            (#"{"tab\tkey": nul}"#, #"line 1, column 14 (at ["tab\tkey"]): expected a JSON value, found 'n'"#),
        ] as [(String, String)])
    func aPathThroughKeywordsAndOtherKeysReadsAsLua(_ text: String, _ message: String) {
        do {
            _ = try JSONValue(json: text)
            Issue.record("read \(text)")
        } catch {
            #expect(error.description == message)
        }
    }
}

import MoonbladeLua

/// A strict reader of JSON text (RFC 8259) into ``JSONValue``, which refuses what it could only guess.
///
/// Foundation's `JSONDecoder` keeps one of two duplicate keys, reads `1.0` as the integer 1 and
/// integers beyond 64 bits as rounded floats, and says only "not valid JSON" with no place. Here a
/// number's text decides its kind (a fraction or exponent makes a float, `1.0` stays a float), and
/// every doubtful input is an error with its line, column and path: duplicate keys, integers beyond
/// `Int64`, floats beyond `Double` (`1e400`), unpaired surrogate escapes, strings that are not UTF-8,
/// control characters in strings, anything after the value, and nesting deeper than
/// ``JSONValue/maximumDepth`` (the depth the host accepts from Lua), so no input can exhaust the stack.
/// A leading byte order mark is skipped.
struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    /// The keys and 1-based indices leading to the value being read, for error messages.
    private var path: [LuaCodingKey] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The one value the text holds.
    mutating func parse() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw error("expected a JSON value, found the end of the text") }
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw error("expected the end of the text after the value, found \(found)") }
        return value
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard position < bytes.count else { throw error("expected a JSON value, found the end of the text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("expected a JSON value, found \(found)")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a key in quotes, found \(found)")
            }
            let keyStart = position
            let key = try parseString()
            guard members[key] == nil else {
                position = keyStart
                // Swift strings compare by canonical equivalence: a key may be another one composed
                // differently, which an object cannot hold apart, rather than the same one again.
                if let other = members.keys.first(where: { $0 == key }), !other.utf8.elementsEqual(key.utf8) {
                    throw error(LuaCodingPath.sameTextKeys(other.utf8, key.utf8) + ", which a JSONValue object cannot hold apart")
                }
                throw error("duplicate key \(JSONValue.string(key).jsonString())")
            }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw error("expected ':' after the key, found \(found)") }
            skipWhitespace()
            path.append(LuaCodingKey(stringValue: key))
            members[key] = try parseValue()
            path.removeLast()
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { throw error("expected ',' or '}' in the object, found \(found)") }
        return .object(members)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            skipWhitespace()
            path.append(LuaCodingKey(index: elements.count + 1))
            elements.append(try parseValue())
            path.removeLast()
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { throw error("expected ',' or ']' in the array, found \(found)") }
        return .array(elements)
    }

    /// Steps over the opening bracket, refusing a container nested too deep before it recurses.
    private mutating func enterContainer() throws(JSONSyntaxError) {
        guard path.count < JSONValue.maximumDepth else {
            throw error("nested more than \(JSONValue.maximumDepth) levels deep")
        }
        position += 1
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let text = Array(word.utf8)
        guard bytes[position...].starts(with: text) else { throw error("expected a JSON value, found \(found)") }
        position += text.count
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard digits() > 0 else { throw error("expected a digit in the number, found \(found)") }
        }
        var isFloat = false
        if consume(UInt8(ascii: ".")) {
            isFloat = true
            guard digits() > 0 else { throw error("expected a digit after the decimal point, found \(found)") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isFloat = true
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            guard digits() > 0 else { throw error("expected a digit in the exponent, found \(found)") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if !isFloat {
            guard let integer = Int64(text) else {
                position = start
                throw error("the integer \(text) does not fit in 64 bits (write it as a string to keep every digit)")
            }
            return .integer(integer)
        }
        guard let double = Double(text), double.isFinite else {
            position = start
            throw error("the number \(text) is too large for a 64-bit float")
        }
        return .double(double)
    }

    /// Steps over decimal digits; how many there were.
    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position - start
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard position < bytes.count else {
                position = start
                throw error("the string has no closing quote")
            }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    position = start
                    throw error("the string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("a control character (\\u\(hex4(UInt16(byte)))) in a string must be escaped")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }

    /// Reads the escape at the backslash and appends what it stands for as UTF-8.
    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        let start = position
        position += 1
        guard position < bytes.count else { throw error("the string has no closing quote") }
        let letter = bytes[position]
        position += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
        ]
        if let byte = simple[letter] {
            utf8.append(byte)
            return
        }
        guard letter == UInt8(ascii: "u") else {
            position = start
            throw error("unknown escape \\\(String(decoding: [letter], as: UTF8.self)) in a string")
        }
        let unit = try hexUnit(escapeStart: start)
        var scalar: Unicode.Scalar?
        if UTF16.isLeadSurrogate(unit) {
            let trailStart = position
            if bytes[position...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) {
                position += 2
                let trail = try hexUnit(escapeStart: trailStart)
                if UTF16.isTrailSurrogate(trail) {
                    scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00))
                }
            }
        } else if !UTF16.isTrailSurrogate(unit) {
            scalar = Unicode.Scalar(unit)
        }
        guard let scalar else {
            position = start
            throw error("unpaired surrogate \\u\(hex4(unit)) in a string (not a character)")
        }
        utf8.append(contentsOf: Array(String(scalar).utf8))
    }

    /// The four hex digits after `\u`.
    private mutating func hexUnit(escapeStart: Int) throws(JSONSyntaxError) -> UInt16 {
        guard position + 4 <= bytes.count,
            let unit = UInt16(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16),
            bytes[position..<position + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else {
            position = escapeStart
            throw error("expected four hex digits after \\u")
        }
        position += 4
        return unit
    }

    private func hex4(_ unit: UInt16) -> String {
        let hex = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// What is at the current position, for "found …".
    private var found: String {
        guard position < bytes.count else { return "the end of the text" }
        let byte = bytes[position]
        if byte >= 0x20 && byte < 0x7F { return "'\(String(decoding: [byte], as: UTF8.self))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// An error at the current position and path.
    private func error(_ reason: String) -> JSONSyntaxError {
        let before = bytes[..<min(position, bytes.count)]
        let line = before.count { $0 == 0x0A } + 1
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return JSONSyntaxError(reason: reason, line: line, column: position - lineStart + 1, path: pathText)
    }

    /// The path as the decoders' errors write it (``LuaCodingPath``, a very deep one cut short).
    private var pathText: String { LuaCodingPath.render(path, root: "") }
}

extension JSONValue {
    /// How deep containers may nest in JSON text (the outermost counts): as deep as the Lua coders
    /// carry a `JSONValue` (their guard counts 512 coding levels, two per container), so that whatever
    /// is read can go into Lua and come back.
    public static let maximumDepth = 255

    /// The one JSON value in `text`, read strictly (see ``JSONSyntaxError`` for the errors): a number
    /// with a fraction or exponent is a float (`1.0` too), one without an integer.
    public init(json text: some Sequence<UInt8>) throws(JSONSyntaxError) {
        var parser = JSONParser(Array(text))
        self = try parser.parse()
    }

    /// The one JSON value in `text`; see ``init(json:)-(Sequence<UInt8>)``.
    public init(json text: String) throws(JSONSyntaxError) {
        try self.init(json: text.utf8)
    }
}

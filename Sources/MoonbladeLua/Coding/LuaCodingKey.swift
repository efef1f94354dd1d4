/// A coding key the Lua coders put in coding paths: a field name, or a sequence position.
///
/// Sequence positions are **1-based, as Lua counts**: the third item of `state.todos` has the key
/// `LuaCodingKey(index: 3)`, whose `intValue` is 3 and whose `stringValue` is `"3"`, so that paths
/// read `state.todos[3]` and name the same item a plugin author reaches with `state.todos[3]`.
public struct LuaCodingKey: CodingKey, Sendable, Hashable {
    // A position's decimal string is made only when asked for: sequences are walked far more often
    // than their paths are read.
    private enum Storage: Sendable, Hashable {
        case name(String)
        case position(Int)
    }

    private let storage: Storage

    /// The field name, or the decimal position for a sequence item.
    public var stringValue: String {
        switch storage {
        case .name(let name): name
        case .position(let position): String(position)
        }
    }

    /// The Lua position (1-based) for a sequence item; nil for a field name.
    public var intValue: Int? {
        if case .position(let position) = storage { position } else { nil }
    }

    /// A key naming a field.
    public init(stringValue: String) {
        storage = .name(stringValue)
    }

    /// A key naming a sequence position; `intValue` is the Lua (1-based) position.
    public init(intValue: Int) {
        storage = .position(intValue)
    }

    /// A key naming the item at Lua position `index` (1-based) of a sequence.
    public init(index: Int) {
        self.init(intValue: index)
    }

    /// The key `superEncoder()`/`superDecoder()` use, as `JSONEncoder` does: `"super"`.
    public static let `super` = LuaCodingKey(stringValue: "super")
}

/// Renders coding paths the way a Lua author reads them (the host's JSON reader too, for its paths).
package enum LuaCodingPath {
    /// `root.todos[3].done`: identifiers as `.name`, integer keys and positions as `[n]`, other
    /// strings (Lua keywords too) as `["some key"]`. A path of more than 24 steps (a state nested too
    /// deep) keeps its first 12 and last 6, with `…` between, so that its error stays a line.
    package static func render(_ path: [any CodingKey], root: String) -> String {
        var text = root
        let elided = path.count > 24 ? 12..<(path.count - 6) : 0..<0
        for (number, key) in path.enumerated() {
            if elided.contains(number) {
                if number == elided.lowerBound { text += "…" }
                continue
            }
            append(key, to: &text)
        }
        return text
    }

    /// Appends one step of a path to `text`, as ``render(_:root:)`` writes it.
    package static func append(_ key: some CodingKey, to text: inout String) {
        if let int = key.intValue, key.stringValue == String(int) {
            text += "[\(int)]"
        } else if let int = key.intValue, key.stringValue == "Index \(int)" {
            // The standard library's key for an unkeyed container's item (`DecodingError
            // .dataCorruptedError(in:debugDescription:)` adds one), counted from 0; Lua counts from 1.
            text += "[\(int + 1)]"
        } else if isIdentifier(key.stringValue) {
            text += text.isEmpty ? key.stringValue : "." + key.stringValue
        } else {
            text += "[\(quoted(key.stringValue))]"
        }
    }

    /// `the keys "e\u{301}" and "\u{e9}" are the same text composed differently`: two keys, as UTF-8,
    /// that Swift takes for one (strings compare by canonical equivalence), each written with its
    /// characters beyond ASCII as Lua escapes, so the two can be told apart.
    package static func sameTextKeys(_ first: some Collection<UInt8>, _ second: some Collection<UInt8>) -> String {
        "the keys \(escapedBeyondASCII(first)) and \(escapedBeyondASCII(second)) are the same text composed differently"
    }

    /// ``sameTextKeys(_:_:)`` for keys met in no order of their own (a Lua table's): the lesser bytes
    /// first, so that the message is the same from one run to the next.
    package static func sameTextKeys(inEitherOrder first: [UInt8], _ second: [UInt8]) -> String {
        first.lexicographicallyPrecedes(second) ? sameTextKeys(first, second) : sameTextKeys(second, first)
    }

    private static func escapedBeyondASCII(_ bytes: some Collection<UInt8>) -> String {
        var text = "\""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            text += scalar.isASCII ? String(quoted(String(scalar)).dropFirst().dropLast()) : "\\u{\(String(scalar.value, radix: 16))}"
        }
        return text + "\""
    }

    /// Prefixes `message` with the rendered path: `state.todos[3].done: expected Bool, …`.
    static func describe(_ path: [any CodingKey], root: String, message: String) -> String {
        "\(render(path, root: root)): \(message)"
    }

    private static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// Whether `name` can be written bare as a Lua name (a field, a table key): ASCII letters, digits
    /// and `_`, not starting with a digit, no keyword.
    package static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first) else { return false }
        let valid = name.utf8.allSatisfy { byte in
            byte == 95 || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
        }
        return valid && !keywords.contains(name)
    }

    /// A string in double quotes with quotes, backslashes and control characters escaped, cut after
    /// 40 characters.
    static func quoted(_ string: String) -> String {
        var body = ""
        var count = 0
        for scalar in string.unicodeScalars {
            if count == 40 {
                body += "…"
                break
            }
            count += 1
            switch scalar {
            case "\"": body += "\\\""
            case "\\": body += "\\\\"
            case "\n": body += "\\n"
            case "\t": body += "\\t"
            case "\r": body += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                body += "\\\(scalar.value)"
            default: body.unicodeScalars.append(scalar)
            }
        }
        return "\"\(body)\""
    }
}

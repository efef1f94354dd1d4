import Foundation
import MoonbladeHost
import MoonbladeLua

/// Lua source text for JSON values: what a generated spec writes its states and payloads as.
///
/// A value nested deeper than Lua's parser takes in one expression (about 200 levels: a state may be
/// 512 deep, and its spec failed to load with "C stack overflow") has its deep parts built first, in
/// statements of their own (`deep[1] = { … }`) that ``takeParts()`` hands over to go before the line.
/// So is a part that would take more of the function's registers than Lua gives one expression: an
/// array constructor holds up to 50 of its items in registers until it stores them, so six arrays
/// nested each at its 50th item (300 numbers) failed to load with "function or expression needs too
/// many registers".
struct LuaLiteral {
    /// The most levels one expression nests before a part is built on its own.
    static let partDepth = 100
    /// The most registers the tables open around a value may hold before it is built on its own:
    /// Lua gives a function 255, and the spec's own locals and the call a value is passed to take a few.
    static let partRegisters = 150
    /// Items an array constructor holds in registers before storing them (Lua's `LFIELDS_PER_FLUSH`).
    private static let itemsPerStore = 50
    /// The statements that build the deep parts of the values written since the last take.
    private var parts: [String] = []
    /// How many parts the spec has built, so each has its own number.
    private(set) var partCount = 0

    /// The statements building the deep parts of the values written since the last call, in order.
    mutating func takeParts() -> [String] {
        defer { parts = [] }
        return parts
    }

    /// `value` as a Lua expression; objects and arrays over one line are spread, indented from `indent`.
    ///
    /// Written as the host hands JSON to Lua: a null inside a table is `moonblade.null` (`nil` would
    /// drop an object's key and make a hole in an array), an empty object `moonblade.object()` (a plain
    /// `{}` reads as an empty array). A null on its own, a payload, is `nil`.
    mutating func of(_ value: JSONValue, indent: String) -> String {
        value == .null ? "nil" : inner(value, indent: indent, depth: 0, registers: 0)
    }

    /// `registers`: what the constructors open around `value` hold (each its table, an array also
    /// the items before `value` it has not stored yet).
    private mutating func inner(_ value: JSONValue, indent: String, depth: Int, registers: Int) -> String {
        let ownPart = depth >= Self.partDepth || registers >= Self.partRegisters
        switch value {
        case .null: return "moonblade.null"
        case .object(let members) where members.isEmpty: return "moonblade.object()"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return value == .min ? "math.mininteger" : String(value)
        case .double(let value):
            if value.isNaN { return "(0/0)" }
            if value.isInfinite { return value < 0 ? "-math.huge" : "math.huge" }
            return "\(value)"
        case .string(let value): return Self.string(value)
        case .array(let elements) where ownPart && !elements.isEmpty: return part(value)
        case .object where ownPart: return part(value)
        case .array(let elements):
            return Self.table(
                elements.enumerated().map { index, element in
                    inner(element, indent: indent + "  ", depth: depth + 1, registers: registers + 1 + index % Self.itemsPerStore)
                }, indent: indent)
        case .object(let members):
            return Self.table(
                members.sorted { $0.key < $1.key }.map { key, member in
                    "\(Self.key(key)) = \(inner(member, indent: indent + "  ", depth: depth + 1, registers: registers + 1))"
                }, indent: indent)
        }
    }

    /// `deep[n]`, built by a statement of its own (after those of its own deep parts).
    private mutating func part(_ value: JSONValue) -> String {
        let text = inner(value, indent: "", depth: 0, registers: 0)
        partCount += 1
        parts.append("deep[\(partCount)] = \(text)")
        return "deep[\(partCount)]"
    }

    /// A Lua string literal with every byte that needs it escaped.
    static func string(_ text: String) -> String {
        var literal = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): literal += "\\\""
            case UInt8(ascii: "\\"): literal += "\\\\"
            case UInt8(ascii: "\n"): literal += "\\n"
            case 0x20..<0x7f: literal.unicodeScalars.append(Unicode.Scalar(byte))
            default: literal += String(format: "\\%03d", byte)  // three digits: a digit after it stays a digit
            }
        }
        return literal + "\""
    }

    /// A table key: bare when it is a Lua name, else `["..."]`.
    private static func key(_ name: String) -> String {
        LuaCodingPath.isIdentifier(name) ? name : "[\(string(name))]"
    }

    private static func table(_ items: [String], indent: String) -> String {
        guard !items.isEmpty else { return "{}" }
        let line = "{ " + items.joined(separator: ", ") + " }"
        if line.count <= 80 && !line.contains("\n") { return line }
        let inner = indent + "  "
        return "{\n" + items.map { inner + $0 }.joined(separator: ",\n") + ",\n" + indent + "}"
    }
}

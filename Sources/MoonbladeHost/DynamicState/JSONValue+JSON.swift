import Foundation

extension JSONValue {
    /// The value as JSON text, object keys sorted so equal values read the same.
    ///
    /// `pretty` spreads it over lines indented by two spaces, for people; otherwise it is one line.
    /// Non-finite floats, which JSON cannot hold (a value decoded from Lua never has one: decoding
    /// refuses them), are written as the strings `"inf"`, `"-inf"` and `"nan"` when Swift code made them.
    public func jsonString(pretty: Bool = false) -> String {
        var bytes: [UInt8] = []
        writeJSON(to: &bytes, pretty: pretty)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of ``jsonString(pretty:)`` to `bytes`: the journal writes rows from
    /// bytes, and building them costs a fraction of appending to a `String`.
    public func writeJSON(to bytes: inout [UInt8], pretty: Bool = false) {
        write(to: &bytes, indent: pretty ? "\n" : nil)
    }

    /// Appends the JSON text; `indent` is the line break and indentation of this level when pretty.
    private func write(to bytes: inout [UInt8], indent: String?) {
        switch self {
        case .null: Self.append("null", to: &bytes)
        case .bool(let value): Self.append(value ? "true" : "false", to: &bytes)
        case .integer(let value): bytes.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite {
                bytes.append(contentsOf: value.description.utf8)
            } else {
                Self.writeString(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf", to: &bytes)
            }
        case .string(let value): Self.writeString(value, to: &bytes)
        case .array(let elements):
            Self.writeContainer(UInt8(ascii: "["), UInt8(ascii: "]"), elements, to: &bytes, indent: indent) { element, bytes, indent in
                element.write(to: &bytes, indent: indent)
            }
        case .object(let members):
            Self.writeContainer(UInt8(ascii: "{"), UInt8(ascii: "}"), members.sorted { $0.key < $1.key }, to: &bytes, indent: indent) {
                member, bytes, indent in
                Self.writeString(member.key, to: &bytes)
                Self.append(indent == nil ? ":" : ": ", to: &bytes)
                member.value.write(to: &bytes, indent: indent)
            }
        }
    }

    private static func writeContainer<Element>(
        _ open: UInt8, _ close: UInt8, _ elements: [Element], to bytes: inout [UInt8], indent: String?,
        writeElement: (Element, inout [UInt8], String?) -> Void
    ) {
        bytes.append(open)
        let inner = indent.map { $0 + "  " }
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if let inner { bytes.append(contentsOf: inner.utf8) }
            writeElement(element, &bytes, inner)
        }
        if let indent, !elements.isEmpty { bytes.append(contentsOf: indent.utf8) }
        bytes.append(close)
    }

    /// Appends `string` as a JSON string: quoted, with quotes, backslashes and control characters
    /// escaped. Every byte that needs escaping is ASCII, so the rest is copied in runs.
    private static func writeString(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        bytes.append(UInt8(ascii: "\""))
        string.withUTF8 { utf8 in
            var runStart = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): append(#"\""#, to: &bytes)
                case UInt8(ascii: "\\"): append(#"\\"#, to: &bytes)
                case UInt8(ascii: "\n"): append(#"\n"#, to: &bytes)
                case UInt8(ascii: "\r"): append(#"\r"#, to: &bytes)
                case UInt8(ascii: "\t"): append(#"\t"#, to: &bytes)
                default:
                    append(#"\u00"#, to: &bytes)
                    bytes.append(hexDigit(byte >> 4))
                    bytes.append(hexDigit(byte & 0xf))
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}

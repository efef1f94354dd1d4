import Foundation

extension JSONValue {
    /// The value as JSON text, object keys sorted so equal values read the same.
    ///
    /// `pretty` spreads it over lines indented by two spaces, for people; otherwise it is one line.
    /// Non-finite floats, which JSON cannot hold (a value decoded from Lua never has one: decoding
    /// refuses them), are written as the strings `"inf"`, `"-inf"` and `"nan"` when Swift code made them.
    public func jsonString(pretty: Bool = false) -> String {
        var text = ""
        write(to: &text, indent: pretty ? "\n" : nil)
        return text
    }

    /// Appends the JSON text; `indent` is the line break and indentation of this level when pretty.
    private func write(to text: inout String, indent: String?) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .integer(let value): text += String(value)
        case .double(let value):
            if value.isFinite {
                text += "\(value)"
            } else {
                Self.writeString(value.isNaN ? "nan" : value < 0 ? "-inf" : "inf", to: &text)
            }
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let elements):
            Self.writeContainer("[", "]", elements, to: &text, indent: indent) { element, text, indent in
                element.write(to: &text, indent: indent)
            }
        case .object(let members):
            Self.writeContainer("{", "}", members.sorted { $0.key < $1.key }, to: &text, indent: indent) {
                member, text, indent in
                Self.writeString(member.key, to: &text)
                text += indent == nil ? ":" : ": "
                member.value.write(to: &text, indent: indent)
            }
        }
    }

    private static func writeContainer<Element>(
        _ open: String, _ close: String, _ elements: [Element], to text: inout String, indent: String?,
        writeElement: (Element, inout String, String?) -> Void
    ) {
        text += open
        let inner = indent.map { $0 + "  " }
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            if let inner { text += inner }
            writeElement(element, &text, inner)
        }
        if let indent, !elements.isEmpty { text += indent }
        text += close
    }

    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

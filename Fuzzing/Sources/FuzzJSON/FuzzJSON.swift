import Foundation
import FuzzSupport
import MoonbladeHost

/// One fuzz input: JSON text (or not).
func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzBytes(start: start, count: count)
    JSONDifferential.check(input.rest())
    return 0
}

/// Moonblade's strict JSON reader against Foundation's `JSONSerialization`: the same acceptance but
/// where ours is documented stricter, the same values (integers exact, floats to the bit), an error
/// placed inside the text, and what ours reads written out and read again is the same value.
enum JSONDifferential {
    /// What ours refuses on purpose and Foundation takes (see `JSONParser`'s documentation).
    static let stricterReasons = [
        "duplicate key", "does not fit in 64 bits", "too large for a 64-bit float", "unpaired surrogate",
        "not valid UTF-8", "nested more than", "cannot hold apart", "a control character",
    ]
    /// What Foundation's reader takes beyond RFC 8259, which ours refuses: a comma before `]` or `}`.
    static let foundationLeniencies = ["expected a JSON value, found ']'", "expected a key in quotes, found '}'"]

    static func check(_ bytes: [UInt8]) {
        let reference = Result { try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) }
        let ours: JSONValue
        do {
            ours = try JSONValue(json: bytes)
        } catch {
            checkPlace(of: error, in: bytes)
            if case .success(let value) = reference, !stricterReasons.contains(where: error.reason.contains),
                !foundationLeniencies.contains(error.reason),
                !isOtherEncoding(bytes)
            {
                fuzzFinding("ours refuses what Foundation reads as \(value): \(error)\ninput: \(bytes)")
            }
            return
        }
        switch reference {
        case .failure(let error):
            fuzzFinding("ours reads \(ours.jsonString()) where Foundation refuses: \(error)\ninput: \(bytes)")
        case .success(let value):
            if let difference = difference(ours.withoutByteOrderMarks, value, at: "") {
                fuzzFinding("values differ at \(difference)\nours: \(ours.jsonString())\ninput: \(bytes)")
            }
        }
        let written = ours.jsonString()
        guard let again = try? JSONValue(json: written), again == ours else {
            fuzzFinding("\(written) does not read back as itself\ninput: \(bytes)")
        }
    }

    /// Whether Foundation would take the text for UTF-16 or UTF-32 (a BOM, or a zero byte among the
    /// first four): ours reads UTF-8 only.
    static func isOtherEncoding(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(4).contains(0)
    }

    /// An error's line and column must point into the text (or just past its end).
    static func checkPlace(of error: JSONSyntaxError, in bytes: [UInt8]) {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard error.line >= 1, error.line <= lines.count, error.column >= 1,
            error.column <= lines[error.line - 1].count + 1
        else { fuzzFinding("error outside the text: \(error)\ninput: \(bytes)") }
    }

    /// Where ours and Foundation's value first differ, or nil.
    static func difference(_ ours: JSONValue, _ reference: Any, at path: String) -> String? {
        switch ours {
        case .null:
            return reference is NSNull ? nil : path
        case .bool(let value):
            guard let number = reference as? NSNumber, isBoolean(number), number.boolValue == value else { return path }
            return nil
        case .integer(let value):
            guard let number = reference as? NSNumber, !isBoolean(number) else { return path }
            // Foundation reads "-0" as the float -0.0; ours keeps it the integer 0, its text having no fraction.
            if value == 0, number.doubleValue == 0 { return nil }
            return String(describing: number) == String(value) ? nil : path
        case .double(let value):
            guard let number = reference as? NSNumber, !isBoolean(number) else { return path }
            if number.doubleValue.bitPattern == value.bitPattern { return nil }
            // Foundation reads a number with many digits as a Decimal (38 digits) and rounds that;
            // ours rounds the whole text once, correctly (as strtod and Python do): the same to 15 digits.
            if reference is NSDecimalNumber || reference is Decimal,
                abs(number.doubleValue - value) <= abs(value) * 1e-15
            {
                return nil
            }
            return path + " (\(value) vs \(reference))"
        case .string(let value):
            guard let string = reference as? String, string.withoutByteOrderMarks.utf8.elementsEqual(value.utf8) else {
                return path
            }
            return nil
        case .array(let elements):
            guard let array = reference as? [Any], array.count == elements.count else { return path }
            for (index, element) in elements.enumerated() {
                if let found = difference(element, array[index], at: "\(path)[\(index + 1)]") { return found }
            }
            return nil
        case .object(let members):
            guard let raw = reference as? [String: Any] else { return path }
            let object = Dictionary(raw.map { ($0.withoutByteOrderMarks, $1) }) { first, _ in first }
            guard object.count == members.count else { return path }
            for (key, member) in members {
                guard let other = object[key] else { return "\(path).\(key) (missing)" }
                if let found = difference(member, other, at: "\(path).\(key)") { return found }
            }
            return nil
        }
    }

    static func isBoolean(_ number: NSNumber) -> Bool {
        type(of: number) == type(of: NSNumber(value: true))
    }
}

extension JSONValue {
    /// The value with U+FEFF taken out of every string and key: Foundation drops one that starts a
    /// string or follows an escape (it reads each run between escapes as NSString does a file), where
    /// ours keeps the character the text holds. Both sides are compared without any.
    var withoutByteOrderMarks: JSONValue {
        switch self {
        case .string(let text): .string(text.withoutByteOrderMarks)
        case .array(let elements): .array(elements.map(\.withoutByteOrderMarks))
        case .object(let members):
            .object(Dictionary(members.map { ($0.withoutByteOrderMarks, $1.withoutByteOrderMarks) }) { first, _ in first })
        default: self
        }
    }
}

extension String {
    var withoutByteOrderMarks: String { String(String.UnicodeScalarView(unicodeScalars.filter { $0 != "\u{FEFF}" })) }
}

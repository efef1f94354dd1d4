import CustomDump
import MoonbladeHost

/// Dumps a dynamic state as the plain values it stands for, so a diff reads `"counter": 1` rather
/// than `.object(["counter": .integer(1)])`.
extension JSONValue: CustomDumpRepresentable {
    public var customDumpValue: Any {
        switch self {
        case .null: Optional<Any>.none as Any
        case .bool(let value): value
        case .integer(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let elements): elements.map(\.customDumpValue)
        case .object(let members): members.mapValues(\.customDumpValue)
        }
    }
}

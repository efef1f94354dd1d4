import MoonbladeHost

extension StatePatch {
    /// The patch as JSON, as the journal stores it: an array of `[path, value]` pairs, and `[path]`
    /// for a removal; a path is an array of member names (strings) and array indexes (integers).
    public var json: JSONValue {
        .array(
            changes.map { change in
                let path = JSONValue.array(
                    change.path.map { element in
                        switch element {
                        case .key(let key): .string(key)
                        case .index(let index): .integer(Int64(index))
                        }
                    })
                return .array(change.value.map { [path, $0] } ?? [path])
            })
    }

    /// The JSON text of ``json``, as the journal writes it.
    public var jsonText: String {
        var bytes: [UInt8] = []
        writeJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of ``jsonText`` to `bytes`, built without the `JSONValue` in between.
    func writeJSON(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (position, change) in changes.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: "[[".utf8)
            for (index, element) in change.path.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                switch element {
                case .key(let key): JSONValue.string(key).writeJSON(to: &bytes)
                case .index(let elementIndex): bytes.append(contentsOf: String(elementIndex).utf8)
                }
            }
            bytes.append(UInt8(ascii: "]"))
            if let value = change.value {
                bytes.append(UInt8(ascii: ","))
                value.writeJSON(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Reads a patch from its JSON form (``json``).
    public init(json: JSONValue) throws(StatePatchFormatError) {
        guard case .array(let items) = json else { throw StatePatchFormatError(message: "a patch is not an array") }
        changes = try items.enumerated().map { (position, item) throws(StatePatchFormatError) in
            guard case .array(let parts) = item, (1...2).contains(parts.count), case .array(let steps) = parts[0] else {
                throw StatePatchFormatError(message: "change \(position + 1) is not [path, value] or [path]")
            }
            let path = try steps.map { step throws(StatePatchFormatError) -> PathElement in
                switch step {
                case .string(let key): return .key(key)
                case .integer(let index) where index >= 0: return .index(Int(index))
                default: throw StatePatchFormatError(message: "change \(position + 1) has a path step \(step.jsonString())")
                }
            }
            return Change(path: path, value: parts.count == 2 ? parts[1] : Optional.none)
        }
    }
}

/// A stored patch that cannot be read.
public struct StatePatchFormatError: Error, CustomStringConvertible {
    /// What is wrong with it, for people: `change 2 is not [path, value] or [path]`.
    public var message: String
    public var description: String { message }
}

import FuzzSupport

/// Values and Lua source built from the fuzzer's bytes.
extension FuzzBytes {
    /// A string from pieces that stress the mapping (NUL, multi-byte UTF-8, quotes) and raw bytes.
    mutating func text() -> String {
        let pieces = ["", "a", "\0", "ü", "😀", "\"", "\n", "1", "e\u{301}", "é", "calm", "busy", "cleared"]
        return (0..<choice(4)).map { _ in pieces[choice(pieces.count)] }.joined()
    }

    /// A double from all its bit patterns (NaN and infinities included) or a few plain ones.
    mutating func double() -> Double {
        bool() ? Double(bitPattern: bits64()) : [0, -0.0, 1, 1.5, 9007199254740993, 1e300][choice(6)]
    }

    /// A `CodingSample` nested at most `depth` deep.
    mutating func sample(depth: Int = 2) -> CodingSample {
        CodingSample(
            int8: Int8(truncatingIfNeeded: byte()), uint16: UInt16(truncatingIfNeeded: bits64()),
            int: Int(truncatingIfNeeded: bits64()), uint64: bits64(), float: Float(double()), double: double(),
            name: text(), note: bool() ? text() : nil, flags: (0..<choice(3)).map { _ in bool() },
            byName: Dictionary((0..<choice(3)).map { _ in (text(), Int32(truncatingIfNeeded: bits64())) }) { a, _ in a },
            byID: Dictionary((0..<choice(3)).map { _ in (Int(Int8(truncatingIfNeeded: byte())), text()) }) { a, _ in a },
            matrix: (0..<choice(3)).map { _ in (0..<choice(3)).map { _ in Int8(truncatingIfNeeded: byte()) } },
            mood: bool() ? .calm : .busy,
            events: (0..<choice(3)).map { _ in
                switch choice(3) {
                case 0: .created(at: Int64(truncatingIfNeeded: bits64()))
                case 1: .renamed(text(), previous: bool() ? text() : nil)
                default: .cleared
                }
            },
            child: depth == 0 ? [] : (0..<choice(2)).map { _ in sample(depth: depth - 1) })
    }

    /// A Lua expression: scalars of every kind, tables with keys of every kind, nested `depth` deep.
    mutating func luaExpression(depth: Int = 4) -> String {
        switch choice(depth == 0 ? 7 : 9) {
        case 0: return "nil"
        case 1: return bool() ? "true" : "false"
        case 2: return "math.tointeger(\(Int64(truncatingIfNeeded: bits64())))"
        case 3: return "(\(String(reflecting: double()).replacingNaN))"
        case 4: return luaString(text())
        case 5: return String(Int8(truncatingIfNeeded: byte()))
        case 6: return ["0/0", "1/0", "-1/0", "2^53", "2^63", "-2^63", "0.5", "function() end"][choice(8)]
        default:
            let fields = (0..<choice(6)).map { _ -> String in
                let value = luaExpression(depth: depth - 1)
                switch choice(4) {
                case 0: return value
                case 1: return "[\(luaString(text()))] = \(value)"
                case 2: return "[\(Int(Int8(truncatingIfNeeded: byte())))] = \(value)"
                default: return "[\(["1.0", "2.5", "true", "-1"][choice(4)])] = \(value)"
                }
            }
            return "{" + fields.joined(separator: ", ") + "}"
        }
    }

    /// `text` as a Lua string literal, every byte escaped.
    private func luaString(_ text: String) -> String {
        "\"" + text.utf8.map { "\\\($0)" }.joined() + "\""
    }
}

extension String {
    /// Swift's spelling of a double as Lua reads it (`nan` and `inf` have no literal in Lua).
    var replacingNaN: String {
        if contains("nan") { return "0/0" }  // any payload: `nan(0x30a0000000000)`
        switch self {
        case "inf": return "1/0"
        case "-inf": return "-1/0"
        default: return self
        }
    }
}

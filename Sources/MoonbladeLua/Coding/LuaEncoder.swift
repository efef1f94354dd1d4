import CLua

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Pushes `Encodable` values onto a Lua stack as Lua values, with no JSON or `LuaValue` on the way.
///
/// The mapping, which ``LuaDecoder`` reads back:
///
/// | Swift | Lua |
/// |---|---|
/// | struct, class, keyed container; `[String: V]` | table with string keys |
/// | `[Int: V]` | table with integer keys |
/// | `[K: V]`, `K` a `CodingKeyRepresentable` enum | table keyed by the keys' string forms |
/// | array, set, unkeyed container | sequence `1…n` |
/// | `Int`, `Int8`…`Int64`, `UInt`…`UInt64` | integer (`UInt64`/`UInt` above `Int64.max` is an error) |
/// | `Double`, `Float` | float, even when integral (`math.type` says `"float"`) |
/// | `Bool`, `String` | boolean, string (exact UTF-8 bytes, embedded NUL included) |
/// | `nil` in a keyed container | the key is left out |
/// | `nil` in a sequence | see ``nilInSequenceStrategy`` (an error by default) |
/// | `Date` | see ``dateEncodingStrategy`` (a float of seconds since 2001-01-01 by default) |
/// | `Data` | see ``dataEncodingStrategy`` (a base64 string by default) |
/// | enum with raw value | its raw value; with associated values, its synthesized keyed form |
/// | `superEncoder()` | the key `"super"`, as `JSONEncoder` does |
///
/// Other dictionaries take their `Codable` form (a flat sequence `k1, v1, k2, v2, …`). A value that
/// encodes nothing becomes an empty table. An `encode(to:)` writes one value per encoder: a single
/// value after a container, or a second single value, is an `EncodingError` (where `JSONEncoder`
/// traps). Containers must not be kept past the `encode(to:)` that asked for them.
///
/// Tables are presized, table access is raw (no metamethod runs) and nothing here can raise a Lua
/// error; the VM's memory limit does not apply to host pushes.
public struct LuaEncoder: Sendable {
    /// How `Date` values are encoded. The default is ``deferredToDate``, like `JSONEncoder`'s, because
    /// it round-trips every date bit for bit: a state that passes through a Lua updater untouched
    /// comes back equal.
    public enum DateEncodingStrategy: Sendable {
        /// The date's own `Codable` form: a float of seconds since 2001-01-01 (bit-exact). The default.
        case deferredToDate
        /// A float of seconds since 1970-01-01 UTC, what `os.time()` counts.
        ///
        /// Converting between the 2001 epoch `Date` keeps and the 1970 one may round away the last
        /// bit of a date with sub-microsecond digits (about 0.1 µs) the first time it crosses; a date
        /// that came from Lua, or has whole microseconds, round-trips exactly. Use
        /// ``deferredToDate`` where bit-exact round trips of arbitrary dates matter.
        case secondsSince1970
        /// A float of milliseconds since 1970-01-01 UTC.
        case millisecondsSince1970
        /// An ISO 8601 string in UTC, `2024-05-01T12:30:00Z` (whole seconds, like `JSONEncoder`'s).
        case iso8601
        /// Encoded by the closure, which encodes one value into the encoder it is given.
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` values are encoded. The default is ``base64``.
    public enum DataEncodingStrategy: Sendable {
        /// The data's own `Codable` form: a sequence of byte integers.
        case deferredToData
        /// A base64 string. The default.
        case base64
        /// A Lua string holding the bytes as they are (Lua strings are byte strings).
        case luaString
        /// Encoded by the closure, which encodes one value into the encoder it is given.
        case custom(@Sendable (Data, any Encoder) throws -> Void)
    }

    /// What a `nil` inside a sequence (an unkeyed container, e.g. `[Int?]`) becomes. The default is
    /// ``reject``.
    ///
    /// A Lua sequence cannot hold `nil`: `{1, nil, 3}` has a hole, and `#t` may then be 1 or 3.
    public enum NilInSequenceEncodingStrategy: Sendable {
        /// Encoding fails with `EncodingError.invalidValue` naming the position. The default.
        case reject
        /// The `null` sentinel (``LuaStack/pushNull()``, a light userdata holding a null pointer)
        /// stands in for `nil`; ``LuaDecoder`` reads it back as `nil`.
        case null
    }

    /// How `Date` values are encoded; ``DateEncodingStrategy/deferredToDate`` by default.
    public var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate
    /// How `Data` values are encoded; ``DataEncodingStrategy/base64`` by default.
    public var dataEncodingStrategy: DataEncodingStrategy = .base64
    /// What `nil` in a sequence becomes; ``NilInSequenceEncodingStrategy/reject`` by default.
    public var nilInSequenceStrategy: NilInSequenceEncodingStrategy = .reject
    /// Values handed to `encode(to:)` implementations as `encoder.userInfo`; empty by default.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with the default strategies.
    public init() {}

    /// Pushes `value` onto `stack` as exactly one Lua value.
    ///
    /// On error nothing is pushed (the stack top is restored) and the error is an `EncodingError`
    /// whose context names the coding path; ``describe(_:root:)`` renders it for people. A stack
    /// that cannot grow is an `EncodingError` too, with the ``LuaError`` as its underlying error.
    public func push<T: Encodable>(_ value: T, onto stack: LuaStack) throws {
        try push(value, onto: stack, reusing: nil)
    }

    /// ``push(_:onto:)``, pushing the tables `reusable` offers for collections decoded from them.
    package func push<T: Encodable>(_ value: T, onto stack: LuaStack, reusing reusable: (any LuaReusableTables)?) throws {
        let L = stack.state
        // A lone scalar (the result of a side effect's Swift dependency, say) needs no encoder; without
        // a free slot the full way reports the overflow.
        if lua_checkstack(L, 1) != 0 {
            if T.self == Int.self {
                return stack.push(Int64((value as! Int)))
            } else if T.self == String.self {
                return stack.push((value as! String))
            } else if T.self == Bool.self {
                return stack.push((value as! Bool))
            }
        }
        let base = lua_gettop(L)
        let runtime = stack.runtime
        let encoder = runtime.encoders.take(state: L, options: self)
        defer { runtime.encoders.giveBack(encoder) }
        encoder.reusableTables = reusable
        do {
            try encoder.reserve()
            try encoder.pushValue(value, step: nil)
            if let failure = encoder.stackFailure { throw failure }
        } catch {
            lua_settop(L, base)
            throw error
        }
        lua_settop(L, base + 1)  // containers' scratch slots, if any were left
    }

    /// One line naming the place and the problem: `state.todos[3].due: UInt64 … does not fit …`.
    ///
    /// - Parameter root: how the path's start is shown, e.g. `"state"` or `"payload"`.
    public static func describe(_ error: EncodingError, root: String = "state") -> String {
        switch error {
        case .invalidValue(_, let context):
            return LuaCodingPath.describe(context.codingPath, root: root, message: context.debugDescription)
        @unknown default:
            return "\(root): \(error)"
        }
    }
}

import CLua

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads `Decodable` values straight from a Lua stack slot, with no JSON or `LuaValue` on the way.
///
/// It reads what ``LuaEncoder`` writes, and tables Lua code built:
///
/// - A struct (keyed container) reads a table whose keys are all strings; keys it does not know are
///   ignored, as with JSON. `[String: V]` reads a string-keyed table, `[Int: V]` an integer-keyed one.
/// - An array (unkeyed container) reads a sequence: keys exactly `1…n`. A hole or any other key is
///   an error.
/// - Integer types read Lua integers, and floats with an exact integral value (`3.0`); `3.5`, NaN,
///   ±inf and values out of the type's range are errors, never wrapped or truncated.
/// - `Double` reads any float and the integers it holds exactly; `Float` rounds to nearest, and a
///   finite number beyond its range is an error.
/// - `Bool` reads only booleans, `String` only strings (no number coercion; invalid UTF-8 is an
///   error), `Optional` reads `nil`, an absent key or the `null` sentinel (``LuaStack/pushNull()``)
///   as `nil`.
/// - Metatables are ignored: every read is raw. Functions, coroutines, userdata and tables that
///   contain themselves (along the path being decoded) are errors, not crashes. A string key that is
///   not valid UTF-8 is an error naming it (`allKeys` can only list it repaired).
/// - Containers read the stack, so they must not be kept past the `init(from:)` that asked for them.
///
/// Errors are `DecodingError`s, handled like `JSONDecoder`'s. Their `codingPath` uses
/// ``LuaCodingKey`` for sequence positions, which are **1-based, as Lua counts**, and their
/// `debugDescription` says what was expected and what was found (`expected Bool, found string
/// "yes"`); ``describe(_:root:)`` puts the two together for people:
/// `state.todos[3].done: expected Bool, found string "yes"`.
public struct LuaDecoder: Sendable {
    /// How `Date` values are decoded. The default is ``deferredToDate``, matching ``LuaEncoder``.
    public enum DateDecodingStrategy: Sendable {
        /// The date's own `Codable` form: seconds since 2001-01-01. The default.
        case deferredToDate
        /// Seconds since 1970-01-01 UTC, integer or float (what `os.time()` returns).
        case secondsSince1970
        /// Milliseconds since 1970-01-01 UTC, integer or float.
        case millisecondsSince1970
        /// An ISO 8601 string such as `2024-05-01T12:30:00Z`.
        case iso8601
        /// Decoded by the closure from the decoder it is given.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How `Data` values are decoded. The default is ``base64``.
    public enum DataDecodingStrategy: Sendable {
        /// The data's own `Codable` form: a sequence of byte integers.
        case deferredToData
        /// A base64 string. The default.
        case base64
        /// A Lua string whose bytes are the data.
        case luaString
        /// Decoded by the closure from the decoder it is given.
        case custom(@Sendable (any Decoder) throws -> Data)
    }

    /// How `Date` values are decoded; ``DateDecodingStrategy/deferredToDate`` by default.
    public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    /// How `Data` values are decoded; ``DataDecodingStrategy/base64`` by default.
    public var dataDecodingStrategy: DataDecodingStrategy = .base64
    /// Values handed to `init(from:)` implementations as `decoder.userInfo`; empty by default.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder with the default strategies.
    public init() {}

    /// Reads a `T` from the value at `index`.
    ///
    /// The stack is the same afterwards, on success and on failure. Errors are `DecodingError`s
    /// (see the type's documentation); a stack that cannot grow is one too, with the ``LuaError``
    /// as its underlying error.
    public func decode<T: Decodable>(_ type: T.Type, from stack: LuaStack, at index: Int32) throws -> T {
        // A lone scalar (a side effect's result, say) is read without building a decoder; anything
        // that does not read as one goes the full way, which reports the mismatch.
        if T.self == Int.self, let value = stack.integer(at: index) {
            return Int(value) as! T
        } else if T.self == Bool.self, stack.type(at: index) == .boolean {
            return stack.boolean(at: index) as! T
        }
        let L = stack.state
        let base = lua_gettop(L)
        let index = lua_absindex(L, index)
        defer { lua_settop(L, base) }
        let runtime = stack.runtime
        let decoder = runtime.decoders.take(state: L, options: self)
        defer { runtime.decoders.giveBack(decoder) }
        try decoder.reserve()
        return try decoder.decodeValue(T.self, at: index, step: nil)
    }

    /// One line naming the place and the problem, as a plugin author should read it:
    /// `state.todos[3].done: expected Bool, found string "yes"` or
    /// `state.user: required key "name" is missing`.
    ///
    /// Sequence positions are shown 1-based, as Lua counts. Errors thrown by `init(from:)` code other
    /// than this decoder's are rendered the same way, from their context.
    ///
    /// - Parameter root: how the path's start is shown, e.g. `"state"` or `"payload"`.
    public static func describe(_ error: DecodingError, root: String = "state") -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return LuaCodingPath.describe(context.codingPath, root: root, message: context.debugDescription)
        @unknown default:
            return "\(root): \(error)"
        }
    }
}

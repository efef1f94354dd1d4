/// `value` as a `Value`, or ``StoreError/typeMismatch(expected:found:)``.
///
/// A value whose own type is `Value` (the usual case: a side effect's result on its way back to its
/// dispatcher) is taken out of its existential by opening it and comparing types, then cast with an `as!`
/// that cannot fail: no look-up of `Value?`'s metadata, which code generic over `Value` pays for `as? Value`.
package func exactCast<Value>(_ value: any Sendable, to type: Value.Type) throws -> Value {
    func opened<T: Sendable>(_ value: T) throws -> Value {
        if T.self == Value.self { return value as! Value }
        return try castDynamically(value, to: Value.self)
    }
    return try opened(value)
}

/// `value as? Value`, apart: where it is inlined, `Value?`'s metadata is looked up on every call.
///
/// `()` where a value was expected is a dispatch that returned none (a returning side effect an
/// interceptor dropped, or replaced with an updater): a `Value` that can be nil (an `Optional`) is nil.
@inline(never)
private func castDynamically<Value>(_ value: any Sendable, to _: Value.Type) throws -> Value {
    if let value = value as? Value { return value }
    guard value is Void else {
        throw StoreError.typeMismatch(expected: String(reflecting: Value.self), found: String(reflecting: type(of: value)))
    }
    guard let nilable = Value.self as? any ExpressibleByNilLiteral.Type else {
        throw StoreError.typeMismatch(
            expected: String(reflecting: Value.self),
            found: "no value (an interceptor dropped the side effect or replaced it with a state updater)")
    }
    return nilable.init(nilLiteral: ()) as! Value
}

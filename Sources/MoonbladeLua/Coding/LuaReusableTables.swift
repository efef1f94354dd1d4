/// Tables an encoder may push in place of encoding a value again: those of the collections the
/// resident state's decoding cache decoded, which a state Swift code changed still shares.
package protocol LuaReusableTables {
    /// Pushes the table `value` was decoded from and returns true, if there is one alive; pushes
    /// nothing and returns false otherwise.
    func pushTable<T>(for value: T, _ L: OpaquePointer) -> Bool
}

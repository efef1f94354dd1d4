/// Tables an encoder may push in place of encoding a value again: those of the collections the
/// resident state's decoding cache decoded, which a state Swift code changed still shares.
///
/// Class-bound: an encoder reads it on every nested value, and copying an existential of a struct
/// runs its value witnesses, 3.6 % of encoding 1,000 items with none offered (`Scripts/profile into
/// luaCoders 1000`); a class reference is a pointer.
package protocol LuaReusableTables: AnyObject {
    /// Pushes the table `value` was decoded from and returns true, if there is one alive; pushes
    /// nothing and returns false otherwise.
    func pushTable<T>(for value: T, _ L: OpaquePointer) -> Bool
}

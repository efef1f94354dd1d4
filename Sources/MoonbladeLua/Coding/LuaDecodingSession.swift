/// The stack slots of one decode through a ``LuaDecodingCaching`` cache, carried by the decoder.
package struct LuaDecodingSession {
    // Unchecked: a session lives in its cache's own decoder, which the cache outlives.
    package unowned(unsafe) let cache: any LuaDecodingCaching
    /// The cache's table -> id (weak keys) and id -> table (weak values) tables.
    package let ids: Int32
    package let tables: Int32
    /// The change records of changed tables but the root, and the root's own; 0 for none.
    package let changes: Int32
    package let rootChanges: Int32
    /// The root of a pending version, or 0.
    package let pendingRoot: Int32

    init(
        cache: any LuaDecodingCaching, ids: Int32, tables: Int32, changes: Int32, rootChanges: Int32, pendingRoot: Int32
    ) {
        self.cache = cache
        self.ids = ids
        self.tables = tables
        self.changes = changes
        self.rootChanges = rootChanges
        self.pendingRoot = pendingRoot
    }
}

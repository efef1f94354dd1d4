import MoonbladeLua
import MoonbladeResidentState

extension LuaSide {
    /// The resident version mirroring `state`, the store's state at `generation`: the current one when
    /// Lua code made that state; else `state` pushed whole (Swift code changed it), made current unless
    /// a newer version is already resident (an updater storing its state right now keeps it).
    ///
    /// A nil `generation` (no store yet) always pushes.
    func residentVersion<S: Encodable>(of state: S, generation: UInt64?) throws -> LuaStateVersion {
        let current = resident.current
        guard let generation else { return try resident.replace(with: state, version: .max, encoder: encoder) }
        if let current, current.version == generation { return current }
        if let current, current.version != .max, current.version > generation {
            return try resident.version(of: state, stamped: generation, encoder: encoder)
        }
        return try resident.replace(with: state, version: generation, encoder: encoder)
    }
}

import MoonbladeLua
import MoonbladeResidentState

extension LuaSide {
    /// The resident version mirroring `state`, the store's state at `stateVersion`: the current one when
    /// Lua code made that state; else `state` pushed whole (Swift code changed it), made current unless
    /// a newer version is already resident (an updater storing its state right now keeps it).
    ///
    /// A nil `stateVersion` (no store yet) always pushes.
    func residentVersion<S: Encodable>(of state: S, stateVersion: UInt64?) throws -> LuaStateVersion {
        let current = resident.current
        guard let stateVersion else { return try resident.replace(with: state, version: .max, encoder: encoder) }
        if let current, current.version == stateVersion { return current }
        if let current, current.version != .max, current.version > stateVersion {
            return try resident.version(of: state, stamped: stateVersion, encoder: encoder)
        }
        return try resident.replace(with: state, version: stateVersion, encoder: encoder)
    }
}

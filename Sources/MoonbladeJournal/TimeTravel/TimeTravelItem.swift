import Moonblade
import MoonbladeHost

/// A state updater that puts back a recorded state: what `goto` and `undo` dispatch, so the journal
/// records the jump (with the sequence it went back to) like any other change. Plugin code does not
/// see it (a ``StateRestoration``): no rule saves or reacts to the state put back.
struct TimeTravelItem<S: State & Encodable>: StateUpdater, Encodable, TimeTravelJump, StateRestoration {
    /// The sequence whose state this brings back.
    let target: Int
    let state: S
    /// Brings `state` up to the plugin versions loaded when the jump is applied.
    let migrate: @Sendable (S) throws -> S

    func updateState(_ current: inout S) throws {
        current = try migrate(state)
    }

    enum CodingKeys: CodingKey { case target }
}

/// A time-travel item whatever its state type: the journal records it as `goto` with its target.
protocol TimeTravelJump {
    var target: Int { get }
}

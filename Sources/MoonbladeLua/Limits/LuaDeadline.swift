import CLua
import LuaGuest

/// A moment after which guest code is stopped with a ``LuaError/Kind/limit`` error.
///
/// Measured on the monotonic clock the count hook reads. Pass one to
/// ``LuaCoroutine/resume(arguments:from:deadline:)``; hosts that await Swift work between resumes use
/// ``remaining`` to stop waiting in time.
public struct LuaDeadline: Sendable, Hashable {
    /// The seconds allowed, counted from when the deadline was made.
    let seconds: Double
    /// When it passes, on the clock its other members read: deadlines compare by it.
    public let instant: Double

    /// A deadline `limit` from now.
    public init(after limit: Duration) {
        self.init(afterSeconds: Self.seconds(of: limit))
    }

    init(afterSeconds seconds: Double) {
        self.seconds = seconds
        instant = moonblade_now() + seconds
    }

    /// `duration` in seconds.
    static func seconds(of duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) * 1e-18
    }

    /// The time left, zero once the deadline has passed.
    public var remaining: Duration {
        .seconds(max(0, instant - moonblade_now()))
    }

    /// Whether it has passed (one read of the clock).
    public var hasPassed: Bool {
        moonblade_now() >= instant
    }

    /// What a limit error says when this deadline passes: `time limit of 2 s exceeded`.
    public var exceededMessage: String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            moonblade_time_limit_message(buffer.baseAddress, buffer.count, seconds)
            return String(cString: buffer.baseAddress!)
        }
    }
}

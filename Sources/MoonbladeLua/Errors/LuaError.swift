import LuaGuest

/// An error raised by Lua code, or by the bridge on Lua's behalf.
///
/// `description` is one line a person can act on (`todo/plugin.lua:12: attempt to index a nil value`);
/// the traceback and the Swift error that started it, if any, ride along for logs and for callers.
public struct LuaError: Error, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Hashable {
        /// A chunk failed to compile.
        case syntax
        /// Lua code raised an error, or a Swift function it called threw.
        case runtime
        /// The VM's memory limit was reached (or memory ran out).
        case memory
        /// A resource limit other than memory stopped the code (instruction budget, wall clock).
        case limit
        /// A Lua value has no Swift counterpart (a function where data was expected, a cycle, …).
        case conversion
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// Lua's message, including the `source:line:` prefix Lua puts on it when it has one.
    public var message: String
    /// Where the error was raised, when a Lua line was running.
    public var location: LuaLocation?
    /// Lua's stack traceback at the point of the error, when one was taken.
    public var traceback: String?
    /// The Swift error that became this Lua error, if it crossed the boundary from a Swift function.
    public var underlying: (any Error)?

    /// An error of `kind` with Lua's `message` and, when known, its place, traceback and cause.
    public init(
        _ kind: Kind, message: String, location: LuaLocation? = nil, traceback: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.location = location
        self.traceback = traceback
        self.underlying = underlying
    }

    /// One line: the message, prefixed with its place unless Lua already put it there.
    public var description: String {
        let firstLine = message.prefix { $0 != "\n" }
        guard let location, !firstLine.hasPrefix("\(location.source):") else { return String(firstLine) }
        return "\(location): \(firstLine)"
    }
}

extension LuaError {
    /// `message`, or, when it is longer than the VM keeps an error message whole, its start and end
    /// around the size it had, as the VM's message handler cuts a plugin's (`moonblade_longest_message`):
    /// for messages made in Swift of what plugins and specs hand over.
    package static func cut(_ message: String) -> String {
        let bytes = message.utf8
        let longest = Int(moonblade_longest_message), keptEnd = Int(moonblade_kept_message_end)
        guard bytes.count > longest else { return message }
        let start = String(decoding: bytes.prefix(longest - keptEnd), as: UTF8.self)
        let end = String(decoding: bytes.suffix(keptEnd), as: UTF8.self)
        return "\(start) ... (a message of \(bytes.count) bytes, cut) ... \(end)"
    }
}

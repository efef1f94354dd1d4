import Foundation
import MoonbladeHost
import MoonbladeLua

// The spec's side of the standard dependencies: what the plugin's `ctx.deps` reaches, the spec
// reads and sets through these globals. They run inside `lock`, as every function Lua calls.

extension SpecSession {
    /// The globals ``installStandardDependencies(into:)`` defines, for editor types.
    static let standardGlobals = ["clock", "logs", "storage"]

    /// Defines `storage.read(key)`, `storage.write(key, value)`, `clock.set(time)`,
    /// `clock.advance(seconds)`, `clock.now()` and `logs()` in the table at the top of `stack`.
    func installStandardDependencies(into stack: LuaStack) throws(LuaError) {
        let standard = standard
        let groups: [(String, [(String, LuaFunction)])] = [
            (
                "storage",
                [
                    (
                        "read",
                        { [unowned self] stack in
                            try encoder.push(standard.read(try key(stack, "storage.read")), onto: stack)
                            return 1
                        }
                    ),
                    (
                        "write",
                        { [unowned self] stack in
                            let key = try key(stack, "storage.write")
                            standard.write(
                                key, stack.type(at: 2) == .nil || stack.type(at: 2) == .none ? nil : try json(stack, at: 2, "storage.write value"))
                            return 0
                        }
                    ),
                ]
            ),
            (
                "clock",
                [
                    (
                        "set",
                        { [unowned self] stack in
                            standard.time = try time(stack)
                            return 0
                        }
                    ),
                    (
                        "advance",
                        { stack in
                            guard let seconds = stack.number(at: 1) else {
                                throw stack.placedError(
                                    "clock.advance needs a number of seconds, got \(stack.type(at: 1))", skipping: Self.glueChunks)
                            }
                            standard.time = standard.time.addingTimeInterval(seconds)
                            return 0
                        }
                    ),
                    (
                        "now",
                        { stack in
                            stack.push(standard.time.timeIntervalSince1970)
                            return 1
                        }
                    ),
                ]
            ),
        ]
        for (group, functions) in groups {
            stack.pushTable(fieldCount: Int32(functions.count))
            for (name, function) in functions {
                stack.push(function: function)
                stack.rawSet(table: -2, field: name)
            }
            stack.rawSet(table: -2, field: group)
        }
        stack.push(function: { [unowned self] stack in
            try encoder.push(standard.log, onto: stack)
            return 1
        })
        stack.rawSet(table: -2, field: "logs")
    }

    private func key(_ stack: LuaStack, _ function: String) throws -> String {
        guard stack.type(at: 1) == .string, let key = stack.string(at: 1) else {
            throw stack.placedError("\(function) needs a key string, got \(stack.type(at: 1))", skipping: Self.glueChunks)
        }
        return key
    }

    /// `clock.set`'s argument: seconds since 1970, or an ISO 8601 time (`2026-11-21T15:30:00Z`).
    private func time(_ stack: LuaStack) throws -> Date {
        if stack.type(at: 1) == .number, let seconds = stack.number(at: 1) {
            return Date(timeIntervalSince1970: seconds)
        }
        if let text = stack.type(at: 1) == .string ? stack.string(at: 1) : nil, let date = try? Date(text, strategy: .iso8601) {
            return date
        }
        throw stack.placedError("clock.set needs seconds since 1970 or an ISO 8601 time like \"2026-11-21T15:30:00Z\"", skipping: Self.glueChunks)
    }
}

import Foundation
import Testing

/// A to-do item, the element of the test states' lists.
public struct Todo: Codable, Equatable, Sendable {
    public var title: String
    public var done = false

    public init(title: String, done: Bool = false) {
        self.title = title
        self.done = done
    }
}

/// The repository's `Plugins/` folder, where the shipped plugins live.
public let shippedPluginsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Plugins").path

/// The shipped plugin `name`, `Plugins/<name>` at the package root.
public func shippedPlugin(_ name: String) -> String {
    "\(shippedPluginsDirectory)/\(name)"
}

/// A fresh, empty directory for one test, removed when it is done.
public final class ScratchDirectory: Sendable {
    public let url = FileManager.default.temporaryDirectory.appendingPathComponent("moonblade-tests-\(UUID().uuidString)")

    public init() {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Plugin folders written for one test, removed when it is done.
public final class ScratchPlugins: Sendable {
    private let scratch = ScratchDirectory()

    public init() {}

    /// Writes `<name>/plugin.lua` and returns the folder.
    public func write(_ name: String, _ source: String) throws -> String {
        let folder = scratch.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try source.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        return folder.path
    }
}

/// Polls `condition` every millisecond until it holds or `timeout` of watching passes; returns whether it held.
///
/// The bound counts the time the poller watched, not the time the machine spent elsewhere: a wake-up
/// that comes late (the two pool threads of this 2-core machine held by other suites' synchronous Lua
/// for tens of seconds) counts as one short step, since whatever the condition waits for was kept
/// from running just as long. A condition that never holds still fails after `timeout` of prompt
/// polling, and after ten times `timeout` of wall-clock time whatever the load.
public func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let budget = timeout.allowingForSanitizers
    let start = ContinuousClock.now
    var watched = Duration.zero
    var lastLook = start
    while !condition() {
        let now = ContinuousClock.now
        watched += min(now - lastLook, .milliseconds(20))
        lastLook = now
        guard watched < budget, now - start < budget * 10 else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Waits for work running in other tasks until `condition` holds; records an issue at the caller
/// after `timeout` rather than spinning forever.
public func waitUntil(
    timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async {
    let held = await eventually(timeout: timeout, condition)
    #expect(held, "timed out waiting", sourceLocation: sourceLocation)
}

/// On a thread of its own, waits until `condition` holds (checking every 10 ms, for at most `timeout`),
/// waits `delay` more and calls `action`.
///
/// For a choreography another process or a plugin's time limit must see in time: under a sanitizer,
/// tests holding the shared pool can keep a test's own task from running for longer than a limit.
public func onAThreadOfItsOwn(
    once condition: @escaping @Sendable () -> Bool, after delay: Duration = .zero, timeout: Duration = .seconds(30),
    _ action: @escaping @Sendable () -> Void
) {
    let deadline = ContinuousClock.now + timeout.allowingForSanitizers
    Thread.detachNewThread {
        while !condition(), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        action()
    }
}

/// Lua that defines `local function deep_copy(value)`: a copy of plain tables (a payload's, not a
/// draft's) that keeps the kind markers of `moonblade.object()` and `moonblade.array()`, for plugins
/// that check the dynamic state against plain Lua code.
public let luaDeepCopyKeepingKinds = """
    -- A kind marker's metatable is protected: `getmetatable` gives its name.
    local object, array = getmetatable(moonblade.object()), getmetatable(moonblade.array())
    local function deep_copy(value)
      if type(value) ~= "table" then return value end
      local kind = getmetatable(value)
      local copy = kind == object and moonblade.object() or kind == array and moonblade.array() or {}
      for k, v in pairs(value) do copy[k] = deep_copy(v) end
      return copy
    end
    """

import MoonbladeHost
import MoonbladeTestSupport
import MoonbladeTesting
import Testing

/// `receive` and `finish` wait for what the store does, not for a time: a slow dependency only makes
/// them wait longer, and an item nothing can send any more fails at once.
@Suite struct PluginTesterWaitingTests {
    /// A tester whose `list.load` reads through a stub that opens `entered`, then waits for `gate`.
    private func tester(entered: Gate, gate: Gate) throws -> PluginTester<TodoState> {
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) -> [Todo] in
            entered.open()
            await gate.wait()
            return [Todo(title: "late")]
        }
        // No side-effect time limit: only the gate ends the read, however long the test takes to open it.
        var configuration = PluginHost<TodoState>.Configuration()
        configuration.sideEffectTimeLimit = nil
        return try PluginTester(
            plugins: [try ListPlugin.directory()], initialState: TodoState(), dependencies: dependencies,
            configuration: configuration)
    }

    /// The receive's guard is an hour: only failing as soon as the store is idle ends the test within its
    /// time limit (which is generous: it only catches a receive that waits out its guard).
    @Test(.hangGuard) func aReceiveNothingCanAnswerFailsAtOnce() async throws {
        let tester = try PluginTester(plugins: [try ListPlugin.directory()], initialState: TodoState())
        await tester.dispatch("list.ping")  // a side effect that dispatches nothing
        await withKnownIssue {
            await tester.receive("list.replace", timeout: .seconds(3600))
        } matching: { issue in
            message(of: issue)
                == "expected to receive list.replace, but nothing more can arrive: no side effect is running and no item is queued"
        }
        await tester.finish(timeout: .seconds(3600))
    }

    @Test func aReceiveWaitsForASideEffectHeldUpByItsDependency() async throws {
        let entered = Gate(), gate = Gate()
        let tester = try tester(entered: entered, gate: gate)
        await tester.dispatch("list.load")
        await entered.wait()
        // The store is busy (the load awaits its read), so the receive waits, however long the gate
        // takes to open.
        async let received: Void = tester.receive("list.replace") { $0.todos = [Todo(title: "late")] }
        gate.open()
        await received
        await tester.finish()
    }

    /// The guard ends a wait on a side effect that does not end, naming it.
    @Test func aReceiveGivesUpOnASideEffectThatDoesNotEndAfterItsTimeout() async throws {
        let entered = Gate(), gate = Gate()
        let tester = try tester(entered: entered, gate: gate)
        await tester.dispatch("list.load")
        await entered.wait()
        await withKnownIssue {
            await tester.receive("list.replace", timeout: .milliseconds(20))
        } matching: { issue in
            message(of: issue)
                == "expected to receive list.replace, but nothing was received within 0.02 seconds (still running: list.load)"
        }
        gate.open()
        await tester.receive("list.replace") { $0.todos = [Todo(title: "late")] }
        await tester.finish()
    }
}

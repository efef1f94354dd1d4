import MoonbladeHost
import MoonbladeTesting
import Testing

@Suite struct PluginTesterPassingTests {
    @Test func anUpdaterWithItsExpectedChangePasses() async throws {
        let tester = try PluginTester(plugins: [plugin("counter")], initialState: CounterState())
        await tester.dispatch("counter.increment", ["by": 2]) { $0.counter = 2 }
        await tester.dispatch("counter.reset") { $0.counter = 0 }
        await tester.finish()
    }

    @Test func aSideEffectsItemsAreReceivedInOrderAndStubsRecordTheirCalls() async throws {
        var dependencies = PluginDependencies()
        let reads = dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk")] }
        let writes = dependencies.stub("storage", "write") { (_: WriteRequest) in }
        let tester = try PluginTester(
            plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("todo.load")
        await tester.receive("todo.replace") { $0.todos = [Todo(title: "milk")] }
        await tester.dispatch("todo.save")
        await tester.finish()
        #expect(reads.calls == [ReadRequest(key: "todos")])
        #expect(writes.calls == [WriteRequest(key: "todos", value: [Todo(title: "milk")])])
    }

    @Test func itemsDispatchedByObserverRulesAreReceivedToo() async throws {
        var dependencies = PluginDependencies()
        let writes = dependencies.stub("storage", "write") { (_: WriteRequest) in }
        let tester = try PluginTester(plugins: [plugin("todo")], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("todo.add", ["title": "milk"]) { $0.todos = [Todo(title: "milk")] }
        await tester.receive("todo.save")  // the shipped todo saves on every change of its list
        await tester.finish()
        #expect(writes.calls == [WriteRequest(key: "todos", value: [Todo(title: "milk")])])
    }

    @Test func anAsyncStubIsAwaitedWithTheVMReleased() async throws {
        let gate = Gate()
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) in
            await gate.wait()
            return [Todo(title: "late")]
        }
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("todo.load")
        // The load is suspended in the stub; updaters still run meanwhile.
        await tester.dispatch("todo.add", ["title": "now"]) { $0.todos = [Todo(title: "now")] }
        gate.open()
        await tester.receive("todo.replace") { $0.todos = [Todo(title: "late")] }
        await tester.finish()
    }

    @Test func aFailingUpdaterCanBeExpectedAndLeavesTheStateAlone() async throws {
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState())
        let error = await tester.dispatchExpectingError("todo.add", ["title": ""])
        let failure = try #require(error as? PluginError)
        #expect(failure.description.contains("todo/plugin.lua:"))
        #expect(failure.message.contains("needs a payload"))
        #expect(tester.state == TodoState())
    }

    @Test func withExhaustivityOffOnlyWhatIsStatedIsChecked() async throws {
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk"), Todo(title: "eggs")] }
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
        tester.exhaustivity = .off
        await tester.dispatch("todo.load")
        await tester.receive("todo.replace") { $0.todos[1].title = "eggs" }
        await tester.dispatch("todo.add", ["title": "tea"])  // a change, unstated
        await tester.finish()
    }
}

@Suite struct PluginTesterFailureTests {
    @Test func aChangeOtherThanTheExpectedOneFailsWithADiff() async throws {
        let tester = try PluginTester(plugins: [plugin("counter")], initialState: CounterState())
        await withKnownIssue {
            await tester.dispatch("counter.increment") { $0.counter = 2 }
        } matching: { issue in
            let text = message(of: issue)
            return text.contains("the state after counter.increment does not match the expectation")
                && text.contains("- CounterState(counter: 2)") && text.contains("+ CounterState(counter: 1)")
        }
    }

    @Test func aFailureIsReportedAtTheCallersLine() async throws {
        let tester = try PluginTester(plugins: [plugin("counter")], initialState: CounterState())
        let line = #line + 2
        await withKnownIssue {
            await tester.dispatch("counter.increment") { $0.counter = 5 }
        } matching: { issue in
            issue.sourceLocation?.line == line && issue.sourceLocation?.fileName == "PluginTesterTests.swift"
        }
    }

    @Test func aChangeWithoutAnExpectationFails() async throws {
        let tester = try PluginTester(plugins: [plugin("counter")], initialState: CounterState())
        await withKnownIssue {
            await tester.dispatch("counter.increment")
        } matching: { issue in
            message(of: issue).contains("counter.increment changed the state, but no change was expected")
        }
    }

    @Test func anExpectedChangeThatDidNotHappenFails() async throws {
        let tester = try PluginTester(plugins: [plugin("counter")], initialState: CounterState())
        await withKnownIssue {
            await tester.dispatch("counter.reset") { $0.counter = 3 }
        } matching: { issue in
            message(of: issue).contains("counter.reset was expected to change the state, but it did not")
        }
        await withKnownIssue {
            await tester.dispatch("counter.reset") { _ in }
        } matching: { issue in
            message(of: issue).contains("omit the closure when no change is expected")
        }
    }

    @Test func anUnknownItemAndAnUnexpectedErrorFail() async throws {
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState())
        await withKnownIssue {
            await tester.dispatch("todo.nope")
        } matching: { issue in
            message(of: issue).contains("dispatching todo.nope failed: todo.nope: no such item is registered")
        }
        await withKnownIssue {
            await tester.dispatch("todo.toggle", ["index": 4])
        } matching: { issue in
            message(of: issue).contains("todo/plugin.lua:23: no todo at index 4")
        }
        await withKnownIssue {
            await tester.dispatchExpectingError("todo.add", ["title": "milk"])
        } matching: { issue in
            message(of: issue).contains("todo.add was expected to fail, but it succeeded")
                || message(of: issue).contains("todo.add changed the state, but no change was expected")
        }
    }

    @Test func anUnreceivedItemFailsAtTheNextDispatchAndAtTheEnd() async throws {
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk")] }
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("todo.load")
        while tester.receivedItems.isEmpty { await Task.yield() }
        #expect(tester.receivedItems == ["todo.replace"])
        await withKnownIssue {
            await tester.dispatch("todo.clear_done")
        } matching: { issue in
            message(of: issue).contains("received todo.replace but did not assert it")
        }
        await tester.dispatch("todo.load")
        await withKnownIssue {
            await tester.finish(timeout: .seconds(5))
        } matching: { issue in
            message(of: issue).contains("received todo.replace but did not assert it")
        }
    }

    @Test func receivingAnotherItemOrNothingFails() async throws {
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk")] }
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("todo.load")
        await withKnownIssue {
            await tester.receive("todo.add")
        } matching: { issue in
            message(of: issue).contains("expected to receive todo.add, but received todo.replace")
        }
        await withKnownIssue {
            await tester.receive("todo.replace", timeout: .milliseconds(20))
        } matching: { issue in
            message(of: issue).contains("expected to receive todo.replace, but nothing was received within")
        }
        await tester.finish()
    }

    @Test func aSideEffectLeftRunningFailsNamingIt() async throws {
        let gate = Gate()
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) -> [Todo] in
            await gate.wait()
            return []
        }
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
        await tester.dispatch("todo.load")
        await withKnownIssue {
            await tester.finish(timeout: .milliseconds(20))
        } matching: { issue in
            message(of: issue).contains("side effect todo.load is still running at the end of the test")
        }
        gate.open()
    }

    @Test func aFailedSideEffectFails() async throws {
        let tester = try PluginTester(plugins: [fixturePlugin("todo")], initialState: TodoState())
        await tester.dispatch("todo.load")  // storage is not exposed
        await withKnownIssue {
            await tester.finish()
        } matching: { issue in
            message(of: issue).contains("side effect todo.load failed: todo.load: todo/plugin.lua:")
                && message(of: issue).contains("attempt to index a nil value (field 'storage')")
        }
    }

    @Test func aPluginThatDoesNotLoadIsAnError() async throws {
        #expect(throws: PluginError.self) {
            _ = try PluginTester(plugins: [plugin("missing")], initialState: TodoState())
        }
    }
}

@Suite struct PluginTesterDynamicStateTests {
    @Test func aDynamicStateDiffsAsPlainValues() async throws {
        let tester = try PluginTester(plugins: [plugin("counter")], initialState: JSONValue.object(["counter": 1]))
        await withKnownIssue {
            await tester.dispatch("counter.increment") { $0 = ["counter": 3] }
        } matching: { issue in
            let text = message(of: issue)
            return text.contains("-   \"counter\": 3") && text.contains("+   \"counter\": 2")
        }
    }

    @Test func aTesterReleasedWithWorkLeftFailsWhereItWasMade() async throws {
        var dependencies = PluginDependencies()
        dependencies.stub("storage", "read") { (_: ReadRequest) in [Todo(title: "milk")] }
        let line = #line + 2
        try await withKnownIssue {
            var tester: PluginTester<TodoState>? = try PluginTester(
                plugins: [fixturePlugin("todo")], initialState: TodoState(), dependencies: dependencies)
            await tester?.dispatch("todo.load")
            while tester?.receivedItems.isEmpty == true { await Task.yield() }
            tester = nil
        } matching: { issue in
            // Released while todo.load may still be finishing: both kinds of left-over work are reported.
            let text = message(of: issue)
            return issue.sourceLocation?.line == line
                && (text.contains("received todo.replace but did not assert it")
                    || text.contains("side effect todo.load is still running at the end of the test"))
        }
    }
}

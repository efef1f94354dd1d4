import MoonbladeHost
import MoonbladeTestSupport

/// A dependency `gate.pass` that holds the side effect calling it until the test lets it go: the test
/// calls ``waitForEntry()`` (the side effect is then awaiting), does what it must, then ``release()``.
struct Gate {
    private let entered = Rendezvous(expected: 2)
    private let released = Rendezvous(expected: 2)

    /// Dependencies exposing `gate.pass`.
    var dependencies: PluginDependencies {
        var dependencies = PluginDependencies()
        dependencies.expose("gate", "pass") { [entered, released] () async -> Bool in
            await entered.arrive()
            await released.arrive()
            return true
        }
        return dependencies
    }

    func waitForEntry() async { await entered.arrive() }
    func release() async { await released.arrive() }
}

extension PluginHost.Configuration {
    /// For a host whose side effects await work that needs a thread of the cooperative pool (the test
    /// itself through a ``Gate``, a nested side effect): that work may wait for one behind other tests'
    /// work, so the usual 30 s limit is stretched as the tests' own time bounds are under a sanitizer.
    static var awaitingPoolWork: Self { Self(sideEffectTimeLimit: .seconds(30).allowingForSanitizers) }
}

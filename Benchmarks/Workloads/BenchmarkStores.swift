import Moonblade
import MoonbladeHost

/// The stores the dispatch benchmarks compare: a plain Swift store and a plugin host running
/// `Benchmarks/Plugins/bench`, each with a number of listeners (that do nothing: what is measured is
/// the store calling them).
public enum BenchmarkStores {
    /// A store for native Swift items only.
    public static func native<S: State>(
        initialState: S, listeners: Int = 0
    ) -> Store<S, EmptySideEffectDependencyContainer> {
        let store = Store<S, EmptySideEffectDependencyContainer>(stateInitializer: { initialState })
        addListeners(listeners, to: store)
        return store
    }

    /// A plugin host with the `bench` plugin loaded and `bench.echo` exposed as a Swift async dependency,
    /// with `interceptors` and `configuration` (a tracer, say).
    public static func lua<S: State & Codable>(
        initialState: S, listeners: Int = 0, interceptors: [StoreInterceptor] = [],
        configuration: PluginHost<S>.Configuration = .init()
    ) throws -> PluginHost<S> {
        var dependencies = PluginDependencies()
        dependencies.expose("bench", "echo") { (request: EchoRequest) async -> Int in await echo(request.n) }
        let host = try PluginHost<S>(
            plugins: [BenchmarkFiles.plugin("bench")], initialState: initialState, dependencies: dependencies,
            interceptors: interceptors, configuration: configuration)
        if let problem = host.loadErrors.first { throw problem }
        addListeners(listeners, to: host.store)
        return host
    }

    /// The Swift async function both the native and the Lua side effects await.
    public static func echo(_ n: Int) async -> Int { n }

    private static func addListeners<S, D>(_ count: Int, to store: Store<S, D>) {
        for _ in 0..<count {
            _ = store.addListener { _, _ in }
        }
    }
}

import Hummingbird
import Moonblade
import MoonbladeHost

/// A plugin host's HTTP API, as routes you add to your own Hummingbird router.
///
/// ```swift
/// let routes = HostRoutes(host, events: events, configuration: .init(token: "s3cret"))
/// routes.add(to: router.group("moonblade"))
/// ```
///
/// - `POST dispatch/{item}`: dispatches the item with the JSON body as its payload. An updater
///   answers 204; a side effect 200 with what it returned as JSON (204 when it returned nothing).
/// - `GET state`: the state as JSON; `?pointer=/orders/0` the value at that JSON Pointer.
/// - `GET plugins`: each running plugin's name, version and items, and the plugins that did not load.
/// - `POST plugins/{name}/reload`: reloads the plugin (200 with its version, or 422 naming `file:line`).
/// - `GET events` (with a router whose context is a `WebSocketRequestContext`): the live event stream.
///
/// Errors are `application/problem+json` (see ``Problem``); none of them changes the state. With a
/// token, dispatch, reload and the event stream need `Authorization: Bearer <token>`.
public struct HostRoutes<S: State & Codable>: Sendable {
    /// The host the routes serve.
    public let host: PluginHost<S>
    /// Where the event stream's events come from; nil serves no stream.
    public let events: HostEvents?
    /// Limits, token and the stream's settings.
    public let configuration: Configuration
    /// Keeps the stream fed with the host's reload events for as long as any copy of the routes lives.
    private let reloads: ReloadFollower?

    /// Routes for `host`; with `events` (given to the host as its interceptor and logger, see
    /// ``HostEvents``), an event stream too.
    public init(_ host: PluginHost<S>, events: HostEvents? = nil, configuration: Configuration = Configuration()) {
        self.host = host
        self.events = events
        self.configuration = configuration
        reloads = events.map { ReloadFollower($0.followReloads(of: host)) }
    }

    /// Adds the routes to `group`, all but the event stream, which needs a WebSocket context (see
    /// the other overload).
    public func add<Context: RequestContext>(to group: RouterGroup<Context>) {
        add(routes: group)
    }

    /// Adds every route but the event stream to `group`.
    func add<Context: RequestContext>(routes group: RouterGroup<Context>) {
        group.post("dispatch/:item") { request, context in try await dispatch(request, context) }
        group.get("state") { request, _ in try state(request) }
        group.get("plugins") { _, _ in plugins() }
        group.post("plugins/:name/reload") { request, context in try await reload(request, context) }
    }

    /// Every name an item can be dispatched by, for "did you mean".
    var itemNames: [String] {
        host.plugins.flatMap { $0.updaters + $0.sideEffects }
    }
}

/// Stops following reload events when the last copy of the routes goes.
final class ReloadFollower: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    deinit {
        task.cancel()
    }
}

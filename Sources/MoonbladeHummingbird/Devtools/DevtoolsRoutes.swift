import Hummingbird
import Moonblade
import MoonbladeHost
import MoonbladeJournal

/// The devtools page of a host behind ``HostRoutes``: a live dispatch log with each state and diff,
/// reloads, a dispatch form and, with a journal, time travel (see <doc:Devtools>).
///
/// ```swift
/// let routes = HostRoutes(host, events: events, configuration: .init(token: "s3cret"))
/// routes.add(to: router.group("moonblade"))
/// DevtoolsRoutes(routes, journal: journal).add(to: router.group("moonblade"))  // /moonblade/devtools
/// ```
///
/// - `GET devtools`: the page (its script and style at `devtools/devtools.js` and `devtools/devtools.css`),
///   fed by the routes beside it, so mount both in the same group.
/// - `GET devtools/access`: whether the request's token lets it change the state, and whether there is
///   a journal.
/// - With a journal, each needing the token: `GET journal` (the last entries, `?last=N`, 200 by default),
///   `GET journal/{sequence}/state`, `POST journal/{sequence}/jump` (the journal's pure time travel:
///   `TimeTravel.goto(_:)`) and `GET journal/spec?plugin=NAME` (what `moonblade journal to-spec` writes).
///
/// The page adds no work per dispatch: it reads the event stream, which costs one atomic load per
/// dispatch while no client is connected.
public struct DevtoolsRoutes<S: State & Codable>: Sendable {
    /// The routes the page calls, whose token and limits it shares.
    public let routes: HostRoutes<S>
    /// Time travel on the host's journal; nil when the host records none.
    public let timeTravel: TimeTravel<S>?

    /// The page for `routes`; with the `journal` the host records into, time travel and export as a spec.
    public init(_ routes: HostRoutes<S>, journal: Journal? = nil) {
        self.routes = routes
        timeTravel = journal.map { TimeTravel(host: routes.host, journal: $0) }
    }

    /// Adds the page and the journal's routes to `group`, the group the ``routes`` are in.
    public func add<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get("devtools") { _, _ in DevtoolsPage.html.response }
        group.get("devtools/devtools.js") { _, _ in DevtoolsPage.script.response }
        group.get("devtools/devtools.css") { _, _ in DevtoolsPage.style.response }
        group.get("devtools/access") { request, _ in access(request) }
        group.get("journal") { request, _ in try history(request) }
        group.get("journal/spec") { request, _ in try spec(request) }
        group.get("journal/:sequence/state") { request, context in try state(request, context) }
        group.post("journal/:sequence/jump") { request, context in try await jump(request, context) }
    }

    /// `GET devtools/access`: `write` (the request may dispatch and jump), `tokenRequired`, `journal`.
    func access(_ request: Request) -> Response {
        let write = (try? routes.authorize(request)) != nil
        return Response(json: [
            "write": .bool(write), "tokenRequired": .bool(routes.configuration.token != nil),
            "journal": .bool(timeTravel != nil),
        ])
    }
}

import Hummingbird
import HummingbirdWebSocket
import Logging
import MoonbladeHost
import MoonbladeHummingbird
import MoonbladeJournal

// The Swift examples of the article "Devtools", compiled here.

// snippet: devtools-mount
func makeApplicationWithDevtools(journal: Journal) throws -> some ApplicationProtocol {
    let events = HostEvents()
    let host = try PluginHost<JSONValue>(
        plugins: ["Plugins/counter"], journal: journal, interceptors: [events.interceptor()],
        configuration: .init(logger: events.logger(Logger(label: "app")), tracer: events.tracer()))
    let router = Router(context: BasicWebSocketRequestContext.self)
    let routes = HostRoutes(host, events: events, configuration: .init(token: "s3cret"))
    routes.add(to: router.group("moonblade"))
    DevtoolsRoutes(routes, journal: journal).add(to: router.group("moonblade"))  // /moonblade/devtools
    return Application(
        router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
}
// end snippet

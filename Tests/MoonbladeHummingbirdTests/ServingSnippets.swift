import Hummingbird
import HummingbirdWebSocket
import Logging
import MoonbladeHost
import MoonbladeHummingbird

// The Swift examples of the article "Serving a host over HTTP", compiled here.

// snippet: serving-mount
func makeApplication() throws -> some ApplicationProtocol {
    let events = HostEvents()
    let host = try PluginHost<JSONValue>(
        plugins: ["Plugins/counter"], interceptors: [events.interceptor()],
        configuration: .init(logger: events.logger(Logger(label: "app")), tracer: events.tracer()))
    let router = Router(context: BasicWebSocketRequestContext.self)
    HostRoutes(host, events: events, configuration: .init(token: "s3cret")).add(to: router.group("moonblade"))
    return Application(
        router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
}
// end snippet

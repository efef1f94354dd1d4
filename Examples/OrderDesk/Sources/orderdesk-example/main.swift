import Hummingbird
import HummingbirdWebSocket
import Logging
import MoonbladeHummingbird
import OrderDesk

// The order desk on http://127.0.0.1:8080, its plugins reloading as you edit them.
let logger = Logger(label: "orderdesk")
let events = HostEvents()
var initialState = OrderDeskState()
initialState.catalog = ["tea": Product(name: "Green tea", cents: 450), "pot": Product(name: "Teapot", cents: 3200)]
let host = try OrderDesk.host(initialState: initialState, events: events, logger: logger)
let watcher = host.watchPlugins()
let router = OrderDesk.router(host: host, events: events)
let app = Application(
    router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
    configuration: .init(address: .hostname("127.0.0.1", port: 8080)), logger: logger)
try await app.runService()
watcher.stop()

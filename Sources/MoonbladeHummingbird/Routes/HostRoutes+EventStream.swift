import Hummingbird
import HummingbirdWebSocket
import MoonbladeHost

extension HostRoutes {
    /// Adds the routes to `group`, and with ``events`` the live event stream at `events` (a WebSocket
    /// of JSON text messages, one per event; see <doc:ServingOverHTTP>).
    public func add<Context: WebSocketRequestContext & RequestContext>(to group: RouterGroup<Context>) {
        add(routes: group)
        guard let events else { return }
        let limit = configuration.eventQueueLimit
        group.ws("events") { request, _ in
            try authorize(request)
            try checkOrigin(request)
            // A browser that offered the subprotocol (to carry its token) closes a stream that names none.
            return .upgrade(Self.offersWebSocketProtocol(request) ? [.secWebSocketProtocol: Self.webSocketProtocol] : [:])
        } onUpgrade: { inbound, outbound, _ in
            let (id, queue) = events.subscribe(limit: limit)
            defer { events.unsubscribe(id) }
            // Sent once subscribed: every event after it reaches this client.
            let versions = host.plugins.map { JSONValue.object(["name": .string($0.name), "version": .integer(Int64($0.version))]) }
            try await outbound.write(.text(JSONValue.object(["type": "hello", "plugins": .array(versions)]).jsonString()))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while let entry = await queue.next() {
                        try await outbound.write(.text(entry.json().jsonString()))
                    }
                }
                // The client's messages are not read for anything: the loop ends when it closes.
                for try await _ in inbound {}
                group.cancelAll()
            }
        }
    }
}

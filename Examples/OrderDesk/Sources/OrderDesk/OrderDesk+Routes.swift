import Hummingbird
import HummingbirdWebSocket
import MoonbladeHost
import MoonbladeHummingbird

extension OrderDesk {
    /// The service's router: its own typed routes (`POST /orders`, `GET /orders/{id}`) and the host's
    /// routes under `/moonblade` (dispatch, state, plugins, reload, events).
    public static func router(
        host: PluginHost<OrderDeskState>, events: HostEvents, token: String? = nil
    ) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.post("orders") { request, context -> EditedResponse<Order> in
            let wanted = try await request.decode(as: PlaceOrder.self, context: context)
            do {
                try await host.store.dispatch(wanted).value
            } catch {
                throw HTTPError(.unprocessableContent, message: String(describing: error))
            }
            // Updaters run one at a time: the last order is the one just placed, unless another
            // request placed one meanwhile; find it by customer from the end.
            guard let order = host.state.orders.last(where: { $0.customer == wanted.customer }) else {
                throw HTTPError(.internalServerError)
            }
            return EditedResponse(status: .created, response: order)
        }
        router.get("orders/:id") { _, context -> Order in
            let id = try context.parameters.require("id", as: Int.self)
            guard let order = host.state.orders.first(where: { $0.id == id }) else {
                throw HTTPError(.notFound, message: "no order \(id)")
            }
            return order
        }
        HostRoutes(host, events: events, configuration: .init(token: token)).add(to: router.group("moonblade"))
        return router
    }
}

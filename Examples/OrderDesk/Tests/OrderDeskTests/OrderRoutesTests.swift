import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MoonbladeHost
import MoonbladeHummingbird
import NIOCore
import OrderDesk
import Testing

/// The order desk's HTTP face through Hummingbird's router test client: its own typed routes and the
/// host's routes under /moonblade.
@Suite struct OrderRoutesTests {
    func application(token: String? = nil) throws -> (some ApplicationProtocol, PluginHost<OrderDeskState>) {
        let events = HostEvents()
        let host = try OrderDesk.host(initialState: OrderDeskState(catalog: OrderPluginTests.catalog), events: events)
        let router = OrderDesk.router(host: host, events: events, token: token)
        return (Application(router: router), host)
    }

    @Test func placingAnOrderAnswersWithThePricedOrder() async throws {
        let (app, host) = try application()
        try await app.test(.router) { client in
            let body = ByteBuffer(string: #"{"customer": "ada", "lines": [{"sku": "pot", "quantity": 4}]}"#)
            try await client.execute(uri: "/orders", method: .post, headers: [.contentType: "application/json"], body: body) {
                #expect($0.status == .created)
                let order = try JSONDecoder().decode(Order.self, from: Data($0.body.readableBytesView))
                #expect(order.total == 11520)
            }
            try await client.execute(uri: "/orders/1", method: .get) {
                #expect($0.status == .ok)
                let order = try JSONDecoder().decode(Order.self, from: Data($0.body.readableBytesView))
                #expect(order.customer == "ada")
            }
            try await client.execute(uri: "/orders/2", method: .get) { #expect($0.status == .notFound) }
        }
        #expect(host.state.orders.count == 1)
    }

    @Test func aRefusedOrderIsUnprocessableAndChangesNothing() async throws {
        let (app, host) = try application()
        try await app.test(.router) { client in
            let body = ByteBuffer(string: #"{"customer": "ada", "lines": [{"sku": "cake", "quantity": 1}]}"#)
            try await client.execute(uri: "/orders", method: .post, headers: [.contentType: "application/json"], body: body) {
                #expect($0.status == .unprocessableContent)
            }
        }
        #expect(host.state.orders.isEmpty)
    }

    @Test func theHostRoutesDispatchWithTheToken() async throws {
        let (app, host) = try application(token: "t")
        try await app.test(.router) { client in
            let body = ByteBuffer(string: #"{"sku": "cup", "cents": 800}"#)
            try await client.execute(uri: "/moonblade/dispatch/catalog.set_price", method: .post, body: body) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(
                uri: "/moonblade/dispatch/catalog.set_price", method: .post, headers: [.authorization: "Bearer t"], body: body
            ) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/moonblade/state?pointer=/catalog/cup/cents", method: .get) {
                #expect(String(buffer: $0.body) == "800")
            }
        }
        #expect(host.state.catalog["cup"]?.cents == 800)
    }
}

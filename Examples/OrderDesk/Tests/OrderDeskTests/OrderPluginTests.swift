import MoonbladeHost
import MoonbladeTesting
import OrderDesk
import Testing

/// The order desk's plugins under `PluginTester`: pricing, the discount rule, validation, archiving.
@Suite struct OrderPluginTests {
    static let catalog = ["tea": Product(name: "Green tea", cents: 450), "pot": Product(name: "Teapot", cents: 3200)]

    @Test func anOrderIsPricedFromTheCatalog() async throws {
        let tester = try PluginTester(plugins: OrderDesk.pluginDirectories, initialState: OrderDeskState(catalog: Self.catalog))
        await tester.dispatch("orders.place", PlaceOrder(customer: "ada", lines: [.init(sku: "tea", quantity: 2)])) {
            $0.orders = [
                Order(id: 1, customer: "ada", lines: [OrderLine(sku: "tea", quantity: 2, cents: 450)], subtotal: 900, discount: 0, total: 900)
            ]
            $0.nextID = 1
        }
        await tester.finish()
    }

    @Test func anOrderOfAHundredOrMoreGetsTenPercentOff() async throws {
        let tester = try PluginTester(plugins: OrderDesk.pluginDirectories, initialState: OrderDeskState(catalog: Self.catalog))
        await tester.dispatch("orders.place", PlaceOrder(customer: "bo", lines: [.init(sku: "pot", quantity: 4)])) {
            $0.orders = [
                Order(id: 1, customer: "bo", lines: [OrderLine(sku: "pot", quantity: 4, cents: 3200)], subtotal: 12800, discount: 1280, total: 11520)
            ]
            $0.nextID = 1
        }
        await tester.finish()
    }

    @Test(arguments: [
        (PlaceOrder(customer: "", lines: [.init(sku: "tea", quantity: 1)]), "orders/plugin.lua:13: an order needs a customer"),
        (PlaceOrder(customer: "cy", lines: []), "orders/plugin.lua:14: an order needs at least one line"),
        (PlaceOrder(customer: "cy", lines: [.init(sku: "cake", quantity: 1)]), "orders/plugin.lua:18: line 1: no product cake"),
        (
            PlaceOrder(customer: "cy", lines: [.init(sku: "tea", quantity: 0)]),
            "orders/plugin.lua:20: line 1: the quantity must be a positive integer"
        ),
    ])
    func aBadOrderIsRefusedWithItsPlace(order: PlaceOrder, message: String) async throws {
        let tester = try PluginTester(plugins: OrderDesk.pluginDirectories, initialState: OrderDeskState(catalog: Self.catalog))
        let error = await tester.dispatchExpectingError("orders.place", order)
        #expect("\(error.map { "\($0)" } ?? "")".contains(message))
        #expect(tester.state == OrderDeskState(catalog: Self.catalog))
    }

    @Test func archivingAwaitsTheArchiveThenMarksTheOrder() async throws {
        let archive = OrderArchive()
        let order = Order(id: 1, customer: "ada", lines: [OrderLine(sku: "tea", quantity: 1, cents: 450)], subtotal: 450, discount: 0, total: 450)
        let tester = try PluginTester(
            plugins: OrderDesk.pluginDirectories, initialState: OrderDeskState(catalog: Self.catalog, orders: [order], nextID: 1),
            dependencies: OrderDesk.dependencies(archive: archive))
        await tester.dispatch("orders.archive", ["id": 1])
        await tester.receive("orders.mark_archived", ["id": 1]) { $0.orders[0].archived = true }
        await tester.finish()
        #expect(archive.order(1) == order)
    }

    @Test func aPriceMustBePositive() async throws {
        let tester = try PluginTester(plugins: OrderDesk.pluginDirectories, initialState: OrderDeskState())
        let error = await tester.dispatchExpectingError("catalog.set_price", ["sku": "tea", "cents": -1] as JSONValue)
        #expect("\(error.map { "\($0)" } ?? "")".contains("catalog/plugin.lua:9: a price is a positive number of cents"))
        await tester.dispatch("catalog.set_price", ["sku": "tea", "cents": 500] as JSONValue) { $0.catalog["tea"] = Product(name: "tea", cents: 500) }
    }
}

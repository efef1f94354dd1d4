import MoonbladeHost

/// The typed Swift face of the Lua updater `orders.place`: the Swift route dispatches this.
public struct PlaceOrder: LuaStateUpdater, Codable {
    public static let luaItem = "orders.place"

    /// One wanted line: a sku and a quantity.
    public struct Line: Codable, Sendable, Equatable {
        public var sku: String
        public var quantity: Int

        public init(sku: String, quantity: Int) {
            self.sku = sku
            self.quantity = quantity
        }
    }

    public var customer: String
    public var lines: [Line]

    public init(customer: String, lines: [Line]) {
        self.customer = customer
        self.lines = lines
    }
}

/// One line of an order: how many of a product, at the price it had.
public struct OrderLine: Codable, Equatable, Sendable {
    public var sku: String
    public var quantity: Int
    /// The unit price when the order was placed, in cents.
    public var cents: Int

    public init(sku: String, quantity: Int, cents: Int) {
        self.sku = sku
        self.quantity = quantity
        self.cents = cents
    }
}

import Moonblade

/// The order desk's state: a typed Swift struct the Lua plugins read and change as tables.
public struct OrderDeskState: State, Codable, Equatable {
    /// The products for sale, by sku.
    public var catalog: [String: Product] = [:]
    /// Every order placed, oldest first.
    public var orders: [Order] = []
    /// The number of the last order placed.
    public var nextID = 0

    public init() {}

    public init(catalog: [String: Product], orders: [Order] = [], nextID: Int = 0) {
        self.catalog = catalog
        self.orders = orders
        self.nextID = nextID
    }

    enum CodingKeys: String, CodingKey {
        case catalog, orders
        case nextID = "next_id"
    }
}

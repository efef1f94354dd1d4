import Hummingbird

/// An order as the orders plugin priced it.
public struct Order: Codable, Equatable, Sendable, ResponseEncodable {
    public var id: Int
    public var customer: String
    public var lines: [OrderLine]
    /// The sum of the lines, in cents.
    public var subtotal: Int
    /// What the discount rule took off, in cents.
    public var discount: Int
    public var total: Int
    /// Whether the archive holds it.
    public var archived: Bool

    public init(
        id: Int, customer: String, lines: [OrderLine], subtotal: Int, discount: Int, total: Int, archived: Bool = false
    ) {
        self.id = id
        self.customer = customer
        self.lines = lines
        self.subtotal = subtotal
        self.discount = discount
        self.total = total
        self.archived = archived
    }
}

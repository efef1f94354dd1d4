/// A product for sale and its price.
public struct Product: Codable, Equatable, Sendable {
    public var name: String
    /// The price in cents.
    public var cents: Int

    public init(name: String, cents: Int) {
        self.name = name
        self.cents = cents
    }
}

extension Duration {
    /// The duration in whole microseconds, as the event stream and the journal's routes give it.
    var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}

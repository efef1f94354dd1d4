extension Result where Failure == any Error {
    /// The outcome of `body`: what it returns, or what it throws.
    init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

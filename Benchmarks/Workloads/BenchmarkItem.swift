/// One item of ``ItemsState``: one field of each scalar kind the mapping handles.
public struct BenchmarkItem: Codable, Sendable, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool
    public var score: Double

    public init(id: Int, title: String, done: Bool, score: Double) {
        self.id = id
        self.title = title
        self.done = done
        self.score = score
    }
}

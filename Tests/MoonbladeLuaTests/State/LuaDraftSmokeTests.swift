import MoonbladeLua
import Testing

@Suite struct Smoke {
    @Test func smoke() throws {
        let h = try ResidentStateHarness(Board.sample)
        let v0 = h.resident.current!
        var b = try h.update(Board.self, "state.counter = state.counter + 1")
        #expect(b.counter == 2)
        b = try h.update(Board.self, "state.todos[2].done = false; table.insert(state.todos, {title='d', done=true, tags={}})")
        var expected = Board.sample
        expected.counter = 2; expected.todos[1].done = false; expected.todos.append(Chore(title: "d", done: true))
        #expect(b == expected)
        #expect(try h.share(v0, h.resident.current!, at: "settings"))
        #expect(try !h.share(v0, h.resident.current!, at: "todos"))
        #expect(try h.share(v0, h.resident.current!, at: "todos.1"))
        #expect(try !h.share(v0, h.resident.current!, at: "todos.2"))
    }
}

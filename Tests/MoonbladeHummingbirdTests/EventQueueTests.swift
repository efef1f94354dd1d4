import Logging
import Testing

@testable import MoonbladeHummingbird

/// A slow client's queue: bounded, never waiting, telling the client what it missed where it missed it.
@Suite struct EventQueueTests {
    private func event(_ number: Int) -> HostEvent {
        .logged(level: .error, message: "\(number)", metadata: [:])
    }

    private func message(_ entry: EventQueue.Entry?) -> String {
        switch entry {
        case .event(.logged(_, let message, _))?: message
        case .missed(let count)?: "missed \(count)"
        default: "other"
        }
    }

    @Test func aFullQueueDropsAndCountsInPlace() async {
        let queue = EventQueue(limit: 2)
        for number in 1...5 { queue.push(event(number)) }
        #expect(message(await queue.next()) == "1")
        queue.push(event(6))
        var got: [String] = []
        for _ in 0..<3 { got.append(message(await queue.next())) }
        #expect(got == ["2", "missed 3", "6"])
    }

    @Test func droppedAtTheEndAreToldWhenTheQueueRunsDry() async {
        let queue = EventQueue(limit: 1)
        for number in 1...4 { queue.push(event(number)) }
        #expect(message(await queue.next()) == "1")
        #expect(message(await queue.next()) == "missed 3")
    }

    @Test func finishingWakesAWaitingClient() async {
        let queue = EventQueue(limit: 4)
        async let waiting = queue.next()
        try? await Task.sleep(for: .milliseconds(20))
        queue.finish()
        #expect(await waiting == nil)
        queue.push(event(1))
        #expect(await queue.next() == nil)
    }
}

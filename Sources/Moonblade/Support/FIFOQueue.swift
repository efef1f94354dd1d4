/// A first-in, first-out queue with amortised O(1) `append` and `popFirst`.
struct FIFOQueue<Element> {
    // Popped slots are set to nil so their elements are released at once; the array is compacted
    // when it drains or when the popped prefix outgrows the rest, so it stays bounded under load.
    private var elements: [Element?] = []
    private var head = 0

    /// Adds `element` at the back.
    mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// Removes and returns the front element, or returns nil if the queue is empty.
    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        elements[head] = nil
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head > elements.count / 2 {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}

/// A first-in first-out ring of elements that lets go of each one the moment it is taken.
///
/// The packet queue holds whole video frames (1.4 MB each at 720p): a queue that only moved an
/// index past what it handed out would keep those frames alive until some later compaction.
/// Here `popFirst` clears the slot it takes from, and the storage grows by doubling only when a
/// push finds it full, so a lane at steady state allocates nothing. Not thread-safe: the packet
/// queue edits it under its lock, in place (`lanes[i].ring.push(...)`), never through a copy.
struct PacketRing<Element> {
    private var slots: [Element?]
    private var head = 0
    /// Elements held.
    private(set) var count = 0

    /// - Parameter capacity: slots allocated up front; the ring grows past it when needed.
    init(capacity: Int = 8) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    var isEmpty: Bool { count == 0 }

    /// The oldest element, left in place; nil when empty.
    var first: Element? { count == 0 ? nil : slots[head] }

    /// Appends `element` after the newest one, doubling the storage when it is full.
    mutating func push(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
    }

    /// Takes the oldest element out; its slot no longer refers to it. Nil when empty.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Lets go of every element, keeping the storage.
    mutating func removeAll() {
        while count > 0 { _ = popFirst() }
        head = 0
    }

    private mutating func grow() {
        var larger: [Element?] = Array(repeating: nil, count: slots.count * 2)
        for index in 0..<count { larger[index] = slots[(head + index) % slots.count] }
        slots = larger
        head = 0
    }
}

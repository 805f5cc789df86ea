/// Work finished out of order (segments finished on threads of their own), handed on in the
/// order it was started: each piece takes a ticket when it starts, and what it yields is
/// released once every piece started before it has finished.
///
/// A value; the owner serializes access (a lock).
struct StartOrder<Item> {
    private var started = 0
    private var next = 0
    private var finished: [Int: Item] = [:]

    /// The ticket of a piece of work starting now.
    mutating func start() -> Int {
        defer { started += 1 }
        return started
    }

    /// Notes what the piece with `ticket` yielded.
    ///
    /// - Returns: what can be handed on now, in start order.
    mutating func finish(_ ticket: Int, _ item: Item) -> [Item] {
        finished[ticket] = item
        var ready: [Item] = []
        while let item = finished.removeValue(forKey: next) {
            ready.append(item)
            next += 1
        }
        return ready
    }
}

import FoundationEssentials

/// One picture the preview serves: a whole JPEG.
struct PreviewPicture: Sendable {
    /// Counts the pictures made, from 1.
    let number: Int
    let jpeg: [UInt8]
    let width: Int
    let height: Int
}

/// Where the recording loop leaves pictures for the preview and its viewers take them: the
/// bounded, lock-protected handoff between the two.
///
/// The loop asks `wants(time:)` before it spends anything on a picture: true only while someone
/// watches (a stream viewer, or a snapshot waiting) and the picture is due on the preview's
/// rate. It then leaves a decoded frame (`offer`, copied; the encoder thread makes the JPEG) or a
/// camera's own JPEG (`publish`). Neither blocks on a viewer: each viewer has a queue of
/// `queueCapacity` pictures, and a full one loses its oldest. Thread-safe.
final class PreviewHub: @unchecked Sendable {
    /// Pictures a viewer may have waiting; past that the oldest is dropped for it.
    static let queueCapacity = 2

    private let lock = Condition()
    /// Microseconds between pictures.
    let interval: Int64
    private var due: Int64?
    private var latest: PreviewPicture?
    private var made = 0
    private var queues: [Int: [PreviewPicture]] = [:]
    private var lastViewer = 0
    private var snapshotWaiters = 0
    private var pending: Frame?
    private var status = PreviewStatus()
    /// The recording's latest events as JSON lines, `eventCount` counting all there were.
    private var recent: [String] = []
    private(set) var eventCount = 0
    /// How many recent events `/events` can still catch up on.
    static let eventsKept = 64
    /// True when the recording makes event clips, so `POST /clip` can trigger one.
    var clipsEnabled = false
    private var clipRequests = 0
    private var isClosed = false

    /// - Parameter rate: pictures per second at most.
    init(rate: Double) { interval = Int64((1e6 / rate).rounded()) }

    // MARK: The recording loop's side: never waits.

    /// True when a picture captured at `time` (microseconds, any steady clock) should be made:
    /// someone watches and the next picture is due. Pictures are taken on a grid of `interval`
    /// from the first one, so a camera faster than the rate gives exactly the rate on average. A
    /// frame up to a quarter interval early is on time: a camera at the preview's own rate
    /// jitters around the grid, and would otherwise lose every frame that came a little early.
    func wants(time: Int64) -> Bool {
        lock.withLock {
            guard !isClosed, !queues.isEmpty || snapshotWaiters > 0 else {
                due = nil
                return false
            }
            if let due, time < due - interval / 4 { return false }
            // A picture long after the last due one (nobody watched, the camera paused) restarts the grid.
            due = due.map { time - $0 < interval ? $0 + interval : time + interval } ?? time + interval
            return true
        }
    }

    /// Leaves a decoded picture for the encoder thread, copied so that no decoder's or device's
    /// buffer waits on the preview; replaces one the encoder has not taken yet.
    func offer(_ frame: Frame) {
        guard let copy = try? frame.copied() else { return }
        lock.withLock {
            pending = copy
            lock.broadcast()
        }
    }

    /// Makes `jpeg` the latest picture and queues it for every viewer.
    func publish(jpeg: [UInt8], width: Int, height: Int) {
        lock.withLock {
            guard !isClosed else { return }
            made += 1
            let picture = PreviewPicture(number: made, jpeg: jpeg, width: width, height: height)
            latest = picture
            for id in queues.keys {
                if queues[id]!.count >= Self.queueCapacity { queues[id]!.removeFirst() }
                queues[id]!.append(picture)
            }
            lock.broadcast()
        }
    }

    /// Replaces the numbers `/status.json` serves.
    func update(_ change: (inout PreviewStatus) -> Void) {
        lock.withLock {
            change(&status)
            status.version += 1
            lock.broadcast()
        }
    }

    /// Adds one of the recording's events (a JSON line) for `/events`.
    func publish(event: String) {
        lock.withLock {
            recent.append(event)
            if recent.count > Self.eventsKept { recent.removeFirst() }
            eventCount += 1
            lock.broadcast()
        }
    }

    /// The clips asked for (`POST /clip`) since the last call.
    func takeClipRequests() -> Int {
        lock.withLock {
            defer { clipRequests = 0 }
            return clipRequests
        }
    }

    /// Ends the preview: every waiting viewer and the encoder thread return.
    func close() {
        lock.withLock {
            isClosed = true
            pending = nil
            lock.broadcast()
        }
    }

    // MARK: The encoder thread's and the viewers' side.

    /// True once closed: the server stops.
    var closed: Bool { lock.withLock { isClosed } }

    /// Asks the loop for a clip; false when the recording makes none.
    func requestClip() -> Bool {
        lock.withLock {
            guard clipsEnabled else { return false }
            clipRequests += 1
            return true
        }
    }

    /// The events after the first `seen` (those still kept), and the count to pass next time.
    func events(after seen: Int) -> ([String], Int) {
        lock.withLock {
            let new = min(eventCount - seen, recent.count)
            return (Array(recent.suffix(max(0, new))), eventCount)
        }
    }

    /// The next decoded picture to encode; waits for one. Nil once closed.
    func takeFrame() -> Frame? {
        lock.withLock {
            while pending == nil && !isClosed { lock.wait() }
            defer { pending = nil }
            return isClosed ? nil : pending
        }
    }

    /// A new viewer of the stream, with an empty queue: pictures are made from now on.
    func join() -> Int {
        lock.withLock {
            lastViewer += 1
            queues[lastViewer] = []
            return lastViewer
        }
    }

    func leave(_ viewer: Int) { lock.withLock { _ = queues.removeValue(forKey: viewer) } }

    /// The viewer's next picture; waits until `deadline`. Nil when closed or at the deadline.
    func next(for viewer: Int, until deadline: Date) -> PreviewPicture? {
        lock.withLock {
            while queues[viewer]?.isEmpty == true && !isClosed {
                if !lock.wait(until: deadline) { break }
            }
            guard !isClosed, var queue = queues[viewer], !queue.isEmpty else { return nil }
            let picture = queue.removeFirst()
            queues[viewer] = queue
            return picture
        }
    }

    /// A picture made after this call (so it shows the camera now), waiting until `deadline`; the
    /// latest one made when none came by then; nil when there is none at all.
    func snapshot(until deadline: Date) -> PreviewPicture? {
        lock.withLock {
            snapshotWaiters += 1
            defer { snapshotWaiters -= 1 }
            let before = made
            while made == before && !isClosed {
                if !lock.wait(until: deadline) { break }
            }
            return latest
        }
    }

    /// The numbers as they stand, with the viewers counted.
    var currentStatus: PreviewStatus {
        lock.withLock {
            var current = status
            current.viewers = queues.count
            current.pictures = made
            return current
        }
    }

    /// Waits until the numbers change or `deadline` passes (`/events`); the numbers then.
    func statusChange(after version: Int, until deadline: Date) -> PreviewStatus {
        lock.withLock {
            while status.version == version && !isClosed {
                if !lock.wait(until: deadline) { break }
            }
            var current = status
            current.viewers = queues.count
            current.pictures = made
            return current
        }
    }
}

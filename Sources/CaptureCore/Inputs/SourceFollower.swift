import Glibc
import Synchronization

/// Follows an HDMI grabber's source to its new mode, in a recording cut into segments
/// (`RecordingSession.followsSourceChanges`).
///
/// The reader announces the change and lets go of the camera, then waits until the recording has
/// let go of the old mode's buffers too (the kernel maps a camera's buffers for one format at a
/// time): the loop drains the old mode's encoder once it has taken every packet read before the
/// change, and the muxer writes out what it still holds. Then the camera is opened again at what
/// its source sends now (`V4L2Stream.adoptSignal`). The packets read from there on carry the next
/// generation; at the first of them the loop builds the camera's chain for the new mode from the
/// input published here, and the series starts its next segment with it.
///
/// Threads: `reopen` runs on the reader's thread; the loop calls `takeAnnouncement` and
/// `takeReopened(generation:)`.
final class SourceFollower: Sendable {
    /// The modes before and after, as `SourceChange.changed` names them.
    struct Change: Hashable, Sendable {
        var from: String
        var to: String
    }

    /// The camera opened at its new mode, for the packets of `generation`.
    struct Reopened: @unchecked Sendable {
        let generation: Int
        let source: InputSource
        let input: InputContainer
    }

    private let state = Mutex<(announced: Change?, reopened: Reopened?)>((nil, nil))

    /// Why a recording cut into files does not follow its camera's source (a preview, a second
    /// camera ...), for the message that ends it; nil when it follows.
    let refusal: String?

    init(refusal: String? = nil) { self.refusal = refusal }

    /// Microseconds the reader waits for the old mode's buffers to be let go of: a muxer holds a
    /// frame until the other streams' packets pass it, a fraction of a second.
    static let releaseTimeout: Int64 = 5_000_000

    /// On the reader's thread, after a read failed with a source change: announces `change`, lets
    /// go of `old` (the caller holds it nowhere else), waits until every packet of it is freed,
    /// then opens `source` again at the new mode (`InputSource.following`).
    ///
    /// - Returns: the camera at its new mode, or why not: the old buffers were not let go of
    ///   within `releaseTimeout`, a stop came, or the camera did not open. The recording then
    ///   ends as it does without segments.
    func reopen(
        _ change: Change, old: inout InputContainer?, source: InputSource, signal: SignalTimings?, stream: Int,
        generation: Int, interrupt: InterruptFlag
    ) -> Result<Reopened, CaptureError> {
        state.withLock { $0.announced = change }
        // The packets still in the recording hold the camera's stream, not the container.
        weak let released = old?.deviceOwner
        old = nil
        let deadline = SessionClock.now() + Self.releaseTimeout
        while released != nil {
            if interrupt.isRaised { return .failure(.failed("stopped")) }
            if SessionClock.now() > deadline {
                return .failure(.failed("the old mode's buffers were still in use after 5 s"))
            }
            usleep(10_000)
        }
        var next = source.following(signal: signal)
        var input: InputContainer?
        while input == nil {
            do {
                input = try next.open(interrupt: interrupt)
            } catch {
                // The last packet's thread may still be closing the old stream (a weak reference
                // reads nil once its deinit has begun): busy for a moment more.
                guard case .busy = error, SessionClock.now() < deadline, !interrupt.isRaised else {
                    return .failure(error)
                }
                usleep(20_000)
            }
        }
        guard let input else { return .failure(.failed("stopped")) }
        next.adopt(input.info(of: stream))
        let reopened = Reopened(generation: generation, source: next, input: input)
        state.withLock { $0.reopened = reopened }
        return .success(reopened)
    }

    /// The change announced since the last call, for the loop: it ends the old mode's stream.
    func takeAnnouncement() -> Change? {
        state.withLock { state in
            defer { state.announced = nil }
            return state.announced
        }
    }

    /// The camera at its new mode for the packets of `generation`, once opened; taken once, so
    /// that nothing here holds the camera open when its source changes again.
    func takeReopened(generation: Int) -> Reopened? {
        state.withLock { state in
            guard let reopened = state.reopened, reopened.generation == generation else { return nil }
            state.reopened = nil
            return reopened
        }
    }
}

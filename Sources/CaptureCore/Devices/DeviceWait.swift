import FoundationEssentials
import Glibc

/// Waiting for devices: before a recording or snapshot resolves its devices, waits for each named device that
/// is not there yet (no V4L2 node, no ALSA card, no PulseAudio source, or no PulseAudio server to
/// ask) instead of failing with exit 66. A camera at boot, a service started before the user's
/// sound server, or a USB microphone plugged in after the command started.
///
/// Woken by inotify on /dev, /dev/v4l/by-id, /dev/v4l/by-path and /dev/snd as nodes and links
/// appear, and in any case once a second (a PulseAudio source, or a folder udev makes later).
/// Indices are not waited for: "camera 1" is whichever camera comes second, not a device that
/// can be awaited. Runs on the calling thread.
public enum DeviceWait {
    /// How a wait ended when it did not throw.
    public enum Outcome: Equatable, Sendable {
        /// Every device resolves now.
        case ready
        /// A stop was requested (a signal) while waiting.
        case stopped
    }

    /// The folders whose new entries are worth a look at once.
    static let watchedFolders = ["/dev", "/dev/v4l", "/dev/v4l/by-id", "/dev/v4l/by-path", "/dev/snd"]

    /// How long a node that has appeared may still refuse its user (udev sets its group and mode
    /// just after the kernel makes it) before the refusal counts.
    static let permissionGrace = 3.0

    /// Waits until every device in `devices` resolves (`DeviceResolver.resolve`).
    ///
    /// - Parameters:
    ///   - devices: the names as given, with the kind each is wanted as.
    ///   - timeout: seconds to wait in all; nil: for ever.
    ///   - stop: a request ends the wait with `.stopped`.
    ///   - report: called with one line when a wait for a device begins, and when it ends.
    /// - Returns: `.ready`, or `.stopped`.
    /// - Throws: `CaptureError.deviceNotFound` (66) for an index that names no device (said not
    ///   to be waited for) and for a device still missing after `timeout` (for a `pulse:` name,
    ///   also when no server answered by then); any other error of
    ///   the resolution (77, 69 ...) as it comes, once the device is there.
    public static func wait(
        for devices: [(name: DeviceName, kind: Device.Kind)], timeout: Double?, stop: StopSignal,
        report: @escaping (String) -> Void
    ) throws(CaptureError) -> Outcome {
        var waiting = Waiting(timeout: timeout, stop: stop, report: report)
        for (name, kind) in devices {
            guard try waiting.awaitDevice(name, kind: kind) else { return .stopped }
        }
        return .ready
    }

    /// "camera /dev/video2", "microphone hw:CARD=USB".
    static func describe(_ name: DeviceName, _ kind: Device.Kind) -> String {
        "\(kind == .video ? "camera" : "microphone") \(name)"
    }
}

/// One wait for devices, one after another, against one timeout from its start.
private struct Waiting {
    let timeout: Double?
    let stop: StopSignal
    let report: (String) -> Void
    private let started = SessionClock.now()
    private var watcher: FolderWatcher?

    init(timeout: Double?, stop: StopSignal, report: @escaping (String) -> Void) {
        self.timeout = timeout
        self.stop = stop
        self.report = report
    }

    /// Seconds since the wait began.
    private func elapsed() -> Double { Double(SessionClock.now() - started) / 1e6 }
    private var limit: String { timeout.map { "up to \(DurationValue.text($0)) s" } ?? "until it appears" }
    private var timedOut: Bool { timeout.map { elapsed() >= $0 } ?? false }

    /// Sleeps until a watched folder changes, a second passes, the timeout comes, or a stop.
    private mutating func pause() {
        if watcher == nil { watcher = FolderWatcher(folders: DeviceWait.watchedFolders) }
        watcher?.wait(seconds: min(1, timeout.map { max(0.05, $0 - elapsed()) } ?? 1), stop: stop)
    }

    /// Waits until `name` resolves as a `kind`. A `pulse:` source is looked up on a server, which
    /// a service started at boot may come before: the server is awaited first, then the source.
    ///
    /// - Returns: false when a stop came first.
    mutating func awaitDevice(_ name: DeviceName, kind: Device.Kind) throws(CaptureError) -> Bool {
        var waitedSince: Double?
        var appearedAt: Double?
        while true {
            if stop.isRequested { return false }
            if case .pulse(let source) = name, kind == .audio {
                guard try awaitServer(of: source, name: name, kind: kind) else { return false }
            }
            // Said once the device is there, whether it then opens or not.
            func appeared() {
                guard let waitedSince else { return }
                let after = String(cFormat: "%.1f", elapsed() - waitedSince)
                report("\(DeviceWait.describe(name, kind)) is there (after \(after) s)")
            }
            do {
                _ = try DeviceResolver.resolve(name, kind: kind)
                appeared()
                return true
            } catch .deviceNotFound(let device, let valid, let hint) {
                if case .index = name {
                    throw .deviceNotFound(
                        device: device, valid: valid,
                        hint: "\(.wait) waits for a device named by path or card (/dev/v4l/by-id/..., "
                            + "hw:CARD=...), not by an index, which means whichever device comes first")
                }
                if let timeout, timedOut {
                    throw .deviceNotFound(
                        device: device, valid: valid,
                        hint: "still not there after waiting \(DurationValue.text(timeout)) s (\(.wait))"
                            + (hint.map { "; \($0)" } ?? ""))
                }
                if waitedSince == nil {
                    waitedSince = elapsed()
                    report(
                        "Waiting for \(DeviceWait.describe(name, kind)), which is not there yet (\(limit); Ctrl-C to stop)"
                    )
                }
                appearedAt = nil
            } catch .permissionDenied(let device, let group) where waitedSince != nil {
                // A node that has just appeared may not have its group yet.
                let since = appearedAt ?? elapsed()
                appearedAt = since
                if elapsed() - since >= DeviceWait.permissionGrace {
                    appeared()
                    throw .permissionDenied(device: device, group: group)
                }
            } catch {
                appeared()
                throw error
            }
            pause()
        }
    }

    /// Waits until a PulseAudio server answers.
    ///
    /// - Returns: false when a stop came first.
    private mutating func awaitServer(of source: String?, name: DeviceName, kind: Device.Kind) throws(CaptureError)
        -> Bool
    {
        var waitedSince: Double?
        while !PulseDiscovery.serverAnswers() {
            if stop.isRequested { return false }
            if let timeout, timedOut {
                throw .deviceNotFound(
                    device: PulseDiscovery.display(source: source), valid: [],
                    hint: "no PulseAudio server answered after waiting \(DurationValue.text(timeout)) s "
                        + "(\(.wait)); start pulseaudio or pipewire-pulse, or set PULSE_SERVER")
            }
            if waitedSince == nil {
                waitedSince = elapsed()
                report(
                    "Waiting for the PulseAudio server of \(DeviceWait.describe(name, kind)), which is not reachable yet "
                        + "(\(limit); Ctrl-C to stop)")
            }
            pause()
        }
        if let since = waitedSince {
            report("the PulseAudio server is there (after \(String(cFormat: "%.1f", elapsed() - since)) s)")
        }
        return true
    }
}

/// Sleeps until something is created, renamed into, or changes its attributes in one of a few
/// folders, or a time passes (`inotify(7)`). Folders that do not exist yet are watched once they
/// do. Owns its inotify descriptor, closed in deinit; one thread at a time.
final class FolderWatcher {
    private let descriptor: Int32
    private let folders: [String]

    init(folders: [String]) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        self.folders = folders
        addWatches()
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Adding a watch twice keeps one; a folder made since the last call is added now.
    private func addWatches() {
        guard descriptor >= 0 else { return }
        for folder in folders {
            _ = inotify_add_watch(descriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB))
        }
    }

    /// Returns after `seconds`, on an event in a watched folder, or within a quarter second of a
    /// stop request (`poll(2)` in quarter-second slices, then the events are read and dropped).
    func wait(seconds: Double, stop: StopSignal) {
        let deadline = SessionClock.now() + Int64(seconds * 1e6)
        while !stop.isRequested {
            let left = deadline - SessionClock.now()
            if left <= 0 { break }
            if descriptor < 0 {
                usleep(UInt32(min(left, 250_000)))
                continue
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(min(left / 1000, 250))) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while read(descriptor, &buffer, buffer.count) > 0 {}
                // Let udev finish the links and permissions that come with the node.
                usleep(100_000)
                break
            }
        }
        addWatches()
    }
}

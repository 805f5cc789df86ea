internal import CPulse
import Glibc

/// A PulseAudio source as the server describes it (`pa_source_info`), copied out of libpulse.
struct PulseSource: Sendable {
    var name: String
    var description: String
    var sampleFormat: String
    var sampleRate: Int
    var channels: Int
    /// "s16le 2ch 44100Hz" (`pa_sample_spec_snprint`).
    var sampleSpec: String
    var channelPositions: [String]
    var monitorOf: String?
    var isMonitor: Bool
    var driver: String?
    /// The source is a sound card's input (PA_SOURCE_HARDWARE), not a software one.
    var isHardware: Bool
}

/// A connection to the PulseAudio server (or PipeWire's pulse server): a `pa_mainloop` and a
/// `pa_context`, both freed in deinit. Used from one thread at a time.
///
/// The server is never started on our behalf (PA_CONTEXT_NOAUTOSPAWN) and every wait has a
/// deadline, so a machine without a server costs no more than the timeout.
final class PulseConnection {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer

    /// Connects to the server that `PULSE_SERVER`, client.conf or the user's runtime directory
    /// name.
    ///
    /// - Parameter timeout: how long to wait for the server to answer.
    /// - Returns: nil when no server answers in time.
    ///
    /// What libpulse prints to stderr meanwhile (it reads client.conf and the cookie while it connects) goes to
    /// the library log instead, shown with verbose logging.
    init?(timeout: Duration = .milliseconds(800)) {
        guard let mainloop = pa_mainloop_new() else { return nil }
        guard let context = StandardErrorRoute.routing({ pa_context_new(pa_mainloop_get_api(mainloop), "capture") })
        else {
            pa_mainloop_free(mainloop)
            return nil
        }
        self.mainloop = mainloop
        self.context = context
        guard StandardErrorRoute.routing({ pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) }) >= 0 else {
            return nil
        }
        let deadline = ContinuousClock.now + timeout
        let ready = StandardErrorRoute.routing {
            run(until: deadline) {
                let state = pa_context_get_state(context)
                return state == PA_CONTEXT_READY || state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED
            }
        }
        guard ready, pa_context_get_state(context) == PA_CONTEXT_READY else { return nil }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    /// Runs the main loop until `done` holds or the deadline passes.
    ///
    /// - Returns: whether `done` became true.
    private func run(until deadline: ContinuousClock.Instant, _ done: () -> Bool) -> Bool {
        while !done() {
            let remaining = deadline - .now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let microseconds = Int32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
            guard pa_mainloop_prepare(mainloop, max(microseconds, 1)) >= 0,
                pa_mainloop_poll(mainloop) >= 0,
                pa_mainloop_dispatch(mainloop) >= 0
            else { return false }
        }
        return true
    }

    /// Waits for an operation to finish, then releases it.
    private func wait(_ operation: OpaquePointer?, timeout: Duration) -> Bool {
        guard let operation else { return false }
        defer { pa_operation_unref(operation) }
        return run(until: .now + timeout) { pa_operation_get_state(operation) != PA_OPERATION_RUNNING }
    }

    /// Collects what a libpulse callback delivers; passed to C as the callback's userdata.
    private final class Collector<Value> {
        var values: [Value] = []
    }

    /// The server's default source name (`pa_context_get_server_info`), nil when it has none.
    func defaultSourceName(timeout: Duration = .milliseconds(800)) -> String? {
        let collector = Collector<String?>()
        let operation = pa_context_get_server_info(
            context,
            { _, info, userdata in
                guard let userdata else { return }
                let collector = Unmanaged<Collector<String?>>.fromOpaque(userdata).takeUnretainedValue()
                collector.values.append(info.flatMap { PulseText.string($0.pointee.default_source_name) })
            }, Unmanaged.passUnretained(collector).toOpaque())
        guard wait(operation, timeout: timeout) else { return nil }
        return collector.values.first ?? nil
    }

    /// Every source of the server (`pa_context_get_source_info_list`), in the server's order.
    ///
    /// - Returns: nil when the server did not answer in time.
    func sources(timeout: Duration = .milliseconds(800)) -> [PulseSource]? {
        let collector = Collector<PulseSource>()
        let operation = pa_context_get_source_info_list(
            context,
            { _, info, eol, userdata in
                guard eol == 0, let info, let userdata else { return }
                let collector = Unmanaged<Collector<PulseSource>>.fromOpaque(userdata).takeUnretainedValue()
                collector.values.append(PulseConnection.source(info.pointee))
            }, Unmanaged.passUnretained(collector).toOpaque())
        guard wait(operation, timeout: timeout) else { return nil }
        return collector.values
    }

    private static func source(_ info: pa_source_info) -> PulseSource {
        var spec = info.sample_spec
        var map = info.channel_map
        var specText = [CChar](repeating: 0, count: Int(PA_SAMPLE_SPEC_SNPRINT_MAX))
        pa_sample_spec_snprint(&specText, specText.count, &spec)
        let positions = withUnsafeBytes(of: &map.map) { raw in
            raw.bindMemory(to: pa_channel_position_t.self).prefix(Int(map.channels)).map {
                PulseText.string(pa_channel_position_to_string($0)) ?? "unknown"
            }
        }
        let isMonitor = info.monitor_of_sink != UInt32.max  // PA_INVALID_INDEX
        return PulseSource(
            name: PulseText.string(info.name) ?? "",
            description: PulseText.string(info.description) ?? "",
            sampleFormat: PulseText.string(pa_sample_format_to_string(spec.format)) ?? "invalid",
            sampleRate: Int(spec.rate), channels: Int(spec.channels),
            sampleSpec: specText.withUnsafeBufferPointer { PulseText.string($0.baseAddress) } ?? "",
            channelPositions: positions,
            monitorOf: isMonitor ? PulseText.string(info.monitor_of_sink_name) : nil,
            isMonitor: isMonitor,
            driver: PulseText.string(info.driver),
            isHardware: info.flags.rawValue & PA_SOURCE_HARDWARE.rawValue != 0)
    }
}

/// Text from libpulse, repaired to valid UTF-8.
enum PulseText {
    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A network stream as one of the recording's outputs: it never carries the recording, takes a
/// reference to each packet, and fails alone.
extension StreamOutput: RecordingOutput {
    var name: String { target.printable }
    var carriesRecording: Bool { false }
    var wantsGlobalHeader: Bool { Self.wantsGlobalHeader(formatName: formatName) }
    var started: Bool { received }
    var bytesWritten: Int64 { bytesSent }

    func write(_ packet: Packet, stream: Int) throws(CaptureError) { send(packet, stream: stream) }

    func takeNews() -> (events: [RecordingEvent], warnings: [String]) { ([], takeEvents()) }

    func finish(_ recorded: RecordedStreams) -> OutputReport {
        let report = finish()
        return OutputReport(name: name, bytes: report.bytes, stream: report)
    }

    func close(timeout: Double) { _ = finish(timeout: timeout) }
}

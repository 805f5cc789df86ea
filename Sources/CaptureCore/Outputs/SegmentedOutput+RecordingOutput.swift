/// A series of files as one of the recording's outputs: it carries the recording, orders a
/// keyframe where a segment starts, and reports its files as events.
extension SegmentedOutput: RecordingOutput {
    var name: String { plan.template.pattern }
    var carriesRecording: Bool { true }

    func takeNews() -> (events: [RecordingEvent], warnings: [String]) {
        (takeEvents(), takeWarning().map { [$0] } ?? [])
    }

    func recordingEnds(at time: Int64) { endTime = time }

    func wantsKeyframe(at time: Int64, stream: Int) throws(CaptureError) -> Bool { try cut(at: time) }

    func videoKeyframes(anywhere: Bool) { videoCutsAnywhere = anywhere }

    var followsStreamChanges: Bool { true }

    func replaceStream(_ index: Int, with source: StreamSource) throws(FFmpegError) { replace(index, with: source) }

    /// Finishes the files still open and waits for those being finished.
    func finish(_ recorded: RecordedStreams) -> OutputReport {
        guard started else { return OutputReport(name: name, bytes: 0) }
        let failure = finishSeries()
        return OutputReport(name: name, bytes: bytesWritten, segments: count, failure: failure)
    }
}

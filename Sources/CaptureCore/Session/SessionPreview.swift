/// The preview server's side of a session (`RecordingPlan.preview`): the first camera's pictures,
/// the progress numbers, the events and the clip trigger go to the server's hub; the server
/// stops once the summary's numbers are in.
extension RecordingSession {
    /// Starts serving (the address was taken in `init`) and passes the events on as they come.
    func startPreview() {
        guard let preview else { return }
        preview.hub.clipsEnabled = plan.clips != nil
        let given = onEvent
        onEvent = { event in
            given?(event)
            preview.hub.publish(event: PreviewServer.json(event))
        }
        preview.start()
    }

    /// Gives the first camera's chain the hub, and the server the devices' names, once open.
    func connectPreview() {
        guard let preview else { return }
        tracks.cameras.first?.video?.preview = preview.hub
        preview.setDevices(tracks.map(\.device))
    }

    /// The progress line's numbers, for `/status.json` and `/events`.
    func publishProgress(_ progress: RecordingProgress) {
        preview?.hub.update { status in
            status.state = "recording"
            status.elapsed = progress.elapsed
            status.frames = progress.frames
            status.fps = progress.fps
            status.dropped = progress.dropped
            status.bytes = progress.bytes
            status.bitRate = progress.bitRate
            status.levels = progress.levels
        }
    }

    /// The summary's numbers, the last the server serves.
    func finishPreview(_ summary: RecordingSummary) {
        let cameras = summary.cameras ?? summary.video.map { [$0] } ?? []
        preview?.hub.update { status in
            status.state = "finished"
            status.elapsed = summary.duration
            status.frames = cameras.reduce(0) { $0 + $1.framesWritten }
            status.dropped = cameras.reduce(0) { $0 + $1.framesDropped.total }
            status.bytes = summary.fileSize
            status.bitRate = summary.duration > 0 ? Double(summary.fileSize) * 8 / summary.duration : 0
        }
    }

    /// Clips asked for over HTTP (`POST /clip`) since the last call.
    var previewClipRequests: Int { preview?.hub.takeClipRequests() ?? 0 }
}

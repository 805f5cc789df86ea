extension VideoPath {
    /// Frames per second measured between the first and last frame's capture times.
    var measuredRate: Double? {
        guard let firstTime, let lastTime, written > 1, lastTime > firstTime else { return nil }
        return Double(written - 1) * 1e6 / Double(lastTime - firstTime)
    }

    /// An MJPEG camera's whole JPEG, captured at `time` (microseconds from the start), as the
    /// preview's picture when one is due: its bytes as the camera sent them, nothing decoded.
    func offerPreview(jpeg packet: Packet, time: Int64) {
        guard let preview, preview.wants(time: time) else { return }
        preview.publish(jpeg: packet.bytes, width: width, height: height)
    }

    /// A decoded picture captured at `time`, for the preview's encoder thread when one is due;
    /// copied there, so the loop spends one copy on it and never waits.
    func offerPreview(_ frame: Frame, time: Int64) {
        guard let preview, preview.wants(time: time) else { return }
        preview.offer(frame)
    }
}

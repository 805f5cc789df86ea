/// What a built-in test source or a lavfi graph produces, found by opening it as `record` would.
public struct SourceProbe: Codable, Hashable, Sendable {
    /// The device argument: `test` or `lavfi:GRAPH`.
    public var device: String
    public var description: String
    /// The lavfi graph that was opened.
    public var graph: String
    public var streams: [MediaStreamInfo]

    /// Opens the source of `kind` (lavfi input, `avformat_open_input`) and reports its streams.
    ///
    /// A lavfi graph is read for a moment (`avformat_find_stream_info`) so its frame rate is
    /// known; the paced test source is not, since its rate is part of its definition.
    ///
    /// - Throws: `CaptureError.usage` for a graph that does not open, `.failed` otherwise.
    public static func probe(_ device: Device, kind: Device.Kind) throws(CaptureError) -> SourceProbe {
        let source = try InputSource.make(device, kind: kind)
        let input = try source.open(interrupt: InterruptFlag())
        if !source.live {
            do throws(FFmpegError) { try input.findStreamInfo() } catch {
                throw InputSource.captureError(error, device: device)
            }
        }
        let streams = (0..<input.streamCount).map { index in
            var info = input.info(of: index)
            if info.kind == .video && source.live, let rate = source.frameRate { info.frameRate = rate }
            return info
        }
        return SourceProbe(device: device.name, description: device.description, graph: source.url, streams: streams)
    }

    /// One line per stream, after a line naming the source.
    public var text: String {
        var out = "\(device): \(description)\n  graph: \(graph)\n"
        for stream in streams { out += "  \(stream.kind.rawValue): \(stream.summary)\n" }
        return out
    }
}

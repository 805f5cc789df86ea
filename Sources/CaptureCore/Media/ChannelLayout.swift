internal import CFFmpeg

/// A channel layout as a value: a named FFmpeg layout (by its mask), or a channel count in
/// unspecified order for counts that have no name.
struct ChannelLayout: Hashable, Sendable {
    /// The number of channels.
    var channels: Int
    /// The layout's channel mask (`AV_CHANNEL_ORDER_NATIVE`); nil: unspecified order.
    var mask: UInt64?

    /// FFmpeg's default layout for `channels` (`av_channel_layout_default`): mono, stereo, 2.1,
    /// 4.0, 5.0, 5.1, 6.1, 7.1; unspecified order for any other count.
    static func standard(_ channels: Int) -> ChannelLayout {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channels))
        defer { av_channel_layout_uninit(&layout) }
        return ChannelLayout(channels: channels, mask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : nil)
    }

    /// True when libswresample can mix `from` channels to `to`: both counts have a named default
    /// layout (its rematrixing needs channel positions).
    static func remixes(_ from: Int, _ to: Int) -> Bool {
        from == to || (standard(from).mask != nil && standard(to).mask != nil)
    }

    /// The layouts an encoder may be asked for with `channels` channels, best first: FFmpeg's
    /// default, the other named layouts of that count (`av_channel_layout_standard`; Opus wants
    /// 3.0 and quad where the default is 2.1 and 4.0), then unspecified order.
    static func candidates(_ channels: Int) -> [ChannelLayout] {
        var result = [standard(channels)]
        var opaque: UnsafeMutableRawPointer?
        while let layout = av_channel_layout_standard(&opaque) {
            let named = ChannelLayout(channels: Int(layout.pointee.nb_channels), mask: layout.pointee.u.mask)
            if named.channels == channels && !result.contains(named) { result.append(named) }
        }
        let unspecified = ChannelLayout(channels: channels, mask: nil)
        if !result.contains(unspecified) { result.append(unspecified) }
        return result
    }

    /// The FFmpeg layout; the caller owns it (`av_channel_layout_uninit`, a no-op for these).
    var av: AVChannelLayout {
        var layout = AVChannelLayout()
        if let mask {
            av_channel_layout_from_mask(&layout, mask)
        } else {
            layout.order = AV_CHANNEL_ORDER_UNSPEC
            layout.nb_channels = Int32(channels)
        }
        return layout
    }

    /// FFmpeg's name: `mono`, `stereo`, `4.0`, `5.1`, `10 channels` (`av_channel_layout_describe`).
    var name: String {
        var layout = av
        var buffer = [CChar](repeating: 0, count: 64)
        guard av_channel_layout_describe(&layout, &buffer, buffer.count) >= 0 else { return "\(channels) channels" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

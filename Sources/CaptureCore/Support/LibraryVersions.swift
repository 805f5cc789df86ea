internal import CALSA
internal import CFFmpeg
internal import CPulse

/// The versions of the libraries this build is linked against, read at run time.
public enum LibraryVersions {
    /// The FFmpeg release (`av_version_info`), e.g. "5.1.6-0+deb12u1".
    public static var ffmpeg: String { String(cString: av_version_info()) }

    /// Each libav* library with its run-time version (`avdevice_version()` and friends), in
    /// link order, then libasound (`snd_asoundlib_version()`) and libpulse
    /// (`pa_get_library_version()`): `[("libavdevice", "59.7.100"), ...]`.
    public static var libraries: [(name: String, version: String)] {
        func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        return [
            ("libavdevice", dotted(avdevice_version())),
            ("libavformat", dotted(avformat_version())),
            ("libavcodec", dotted(avcodec_version())),
            ("libswscale", dotted(swscale_version())),
            ("libswresample", dotted(swresample_version())),
            ("libavutil", dotted(avutil_version())),
            ("libasound", String(cString: snd_asoundlib_version())),
            ("libpulse", String(cString: pa_get_library_version())),
        ]
    }
}

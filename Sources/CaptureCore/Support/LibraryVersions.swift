internal import CALSA
internal import CFFmpeg
internal import CPulse
internal import CShim

/// The versions of the libraries this build is linked against, read at run time.
public enum LibraryVersions {
    /// The FFmpeg release (`av_version_info`), e.g. "5.1.6-0+deb12u1".
    public static var ffmpeg: String { String(cString: av_version_info()) }

    /// Each libav* library with its run-time version (`avdevice_version()` and friends), in
    /// link order, then libasound (`snd_asoundlib_version()`) and libpulse
    /// (`pa_get_library_version()`): `[("libavdevice", "59.7.100"), ...]`. libavdevice is loaded
    /// for this if no device has loaded it yet; one that cannot be loaded shows as "missing".
    public static var libraries: [(name: String, version: String)] {
        func dotted(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xff).\(v & 0xff)" }
        let avdevice = CShim_avdevice_version()
        return [
            ("libavdevice", avdevice == 0 ? "missing" : dotted(avdevice)),
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

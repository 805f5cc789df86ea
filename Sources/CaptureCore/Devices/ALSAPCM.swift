internal import CALSA

/// An ALSA capture PCM opened only to ask what it accepts (`snd_pcm_open` with
/// SND_PCM_NONBLOCK): no hardware parameters are set and no stream is started, so probing never
/// changes the device's state. Closed in deinit.
final class ALSAPCM {
    /// The PCM (`snd_pcm_t`); closed in deinit.
    let handle: OpaquePointer
    let name: String

    /// Opens `name` for capture without blocking: a busy device fails at once with -EBUSY
    /// instead of waiting for it to be free.
    ///
    /// - Throws: the negative errno of `snd_pcm_open`.
    init(name: String) throws(ALSAControl.Failure) {
        var opened: OpaquePointer?
        let result = snd_pcm_open(&opened, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        guard result >= 0, let opened else { throw ALSAControl.Failure(code: result) }
        handle = opened
        self.name = name
    }

    deinit { snd_pcm_close(handle) }
}

internal import CALSA

/// An open ALSA control interface of one card (`snd_ctl_open("hw:N")`): what the card is called
/// and which PCM devices it has. Opening it touches no PCM, so listing never disturbs a recording.
final class ALSAControl {
    private let handle: OpaquePointer
    /// The card number this control belongs to.
    let card: Int

    /// Opens the control interface of card `card`.
    ///
    /// - Throws: the negative errno that `snd_ctl_open` returned (-EACCES when /dev/snd/controlCN
    ///   may not be opened).
    init(card: Int) throws(ALSAControl.Failure) {
        var opened: OpaquePointer?
        let result = snd_ctl_open(&opened, "hw:\(card)", 0)
        guard result >= 0, let opened else { throw Failure(code: result) }
        handle = opened
        self.card = card
    }

    deinit { snd_ctl_close(handle) }

    /// A failed libasound call: its negative errno.
    struct Failure: Error {
        var code: Int32
    }

    /// The card's id, short name and long name (`snd_ctl_card_info`).
    func cardInfo() -> (id: String, name: String, longName: String)? {
        var info: OpaquePointer?
        guard snd_ctl_card_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_ctl_card_info_free(info) }
        guard snd_ctl_card_info(handle, info) >= 0 else { return nil }
        return (
            ALSAText.string(snd_ctl_card_info_get_id(info)) ?? "\(card)",
            ALSAText.string(snd_ctl_card_info_get_name(info)) ?? "",
            ALSAText.string(snd_ctl_card_info_get_longname(info)) ?? ""
        )
    }

    /// Every PCM device number on the card, capture or not (`snd_ctl_pcm_next_device`).
    func pcmDevices() -> [Int] {
        var devices: [Int] = []
        var device: Int32 = -1
        while snd_ctl_pcm_next_device(handle, &device) >= 0, device >= 0 {
            devices.append(Int(device))
        }
        return devices
    }

    /// What one PCM device offers in one direction (`snd_ctl_pcm_info`).
    struct PCMInfo {
        var id: String
        var name: String
        var subdevicesAvailable: Int
        var subdevicesTotal: Int
    }

    /// The PCM device's capture side (or playback side), or nil when it has none.
    func pcmInfo(device: Int, capture: Bool = true) -> PCMInfo? {
        var info: OpaquePointer?
        guard snd_pcm_info_malloc(&info) >= 0, let info else { return nil }
        defer { snd_pcm_info_free(info) }
        snd_pcm_info_set_device(info, UInt32(device))
        snd_pcm_info_set_subdevice(info, 0)
        snd_pcm_info_set_stream(info, capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK)
        // -ENOENT here means the device has no substream in that direction.
        guard snd_ctl_pcm_info(handle, info) >= 0 else { return nil }
        return PCMInfo(
            id: ALSAText.string(snd_pcm_info_get_id(info)) ?? "",
            name: ALSAText.string(snd_pcm_info_get_name(info)) ?? "",
            subdevicesAvailable: Int(snd_pcm_info_get_subdevices_avail(info)),
            subdevicesTotal: Int(snd_pcm_info_get_subdevices_count(info)))
    }

    /// The card numbers present (`snd_card_next`), in order.
    static func cardNumbers() -> [Int] {
        var cards: [Int] = []
        var card: Int32 = -1
        while snd_card_next(&card) >= 0, card >= 0 {
            cards.append(Int(card))
        }
        return cards
    }
}

/// The parts of the manual page that are about the program as a whole, not one command: what the
/// command specs cannot say. Each is declared once here; `ManualPage` lays them out.
enum ManualText {
    static let description = """
        capture lists, probes and records cameras and microphones on Linux, through FFmpeg's \
        libavdevice, the kernel's V4L2 interface and libasound. It answers in one program what \
        otherwise takes ffmpeg -f v4l2, v4l2-ctl --list-formats-ext and arecord -l. A recording \
        stays playable whether it ends on a limit, on Ctrl-C, on an unplugged camera or in a crash.
        """

    /// Every form a DEVICE argument takes, and what it selects.
    static let deviceNames: [(form: String, meaning: String)] = [
        ("/dev/video0, /dev/v4l/by-id/..., v4l2:PATH", "A V4L2 camera node."),
        (
            "hw:CARD=PCH,DEV=0, hw:1,0, plughw:..., default, alsa:NAME",
            "An ALSA capture PCM: a card's device or any PCM of the ALSA configuration."
        ),
        ("pulse:NAME, pulse:", "A PulseAudio source; pulse: alone is the server's default source."),
        ("test", "The built-in test pattern (video) or test tone (audio), paced in real time like a device."),
        ("lavfi:GRAPH", "Any lavfi source graph, unpaced (for experts and benchmarks)."),
        (
            "0, 1, ...",
            "The index capture list prints: --video 0 is the first camera, --audio 0 the first microphone."
        ),
    ]
    static let deviceNamesNote = """
        An unknown name exits 66 and lists the valid ones. Cameras need the video group, sound \
        cards the audio group.
        """

    static let files: [(path: String, meaning: String)] = [
        ("/dev/video*", "V4L2 device nodes; capture lists the ones whose device capabilities include video capture."),
        ("/dev/snd/*", "ALSA sound card devices."),
        ("/etc/asound.conf", "The administrator's ALSA configuration; its capture PCMs are listed."),
        ("~/.asoundrc, ~/.config/alsa/asoundrc", "The user's ALSA configuration; its capture PCMs are listed."),
    ]

    static let environment: [(name: String, meaning: String)] = [
        ("PULSE_SERVER", "The PulseAudio server to ask for sources (pulse:NAME devices)."),
        (
            "PIPEWIRE_RUNTIME_DIR",
            "Where the PipeWire socket is looked for, before XDG_RUNTIME_DIR, to tell whether the pipewire PCM can open."
        ),
        ("PIPEWIRE_REMOTE", "The PipeWire socket's name (default pipewire-0)."),
        ("XDG_RUNTIME_DIR", "Where the PulseAudio and PipeWire sockets are looked for."),
        ("ALSA_CONFIG_PATH", "ALSA configuration files to read instead of alsa.conf."),
        ("XDG_CONFIG_HOME", "Where the user's alsa/asoundrc is read from (default ~/.config)."),
    ]

    static let seeAlso: [(name: String, section: Int)] = [("ffmpeg", 1), ("v4l2-ctl", 1), ("arecord", 1)]
}

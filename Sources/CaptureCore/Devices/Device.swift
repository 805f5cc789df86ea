import Glibc

/// One camera, microphone or other capture-related node, as `capture list` shows it.
///
/// A value type: it describes what was found at listing time and holds no open handle.
/// Its JSON form (snake_case keys) is the documented schema of `capture list`'s JSON.
public struct Device: Codable, Hashable, Sendable {
    /// What the device carries.
    public enum Kind: String, Codable, Sendable { case video, audio }
    /// Which API opens it.
    public enum API: String, Codable, Sendable { case v4l2, alsa, pulse, test, lavfi }

    /// The position among cameras (video) or microphones (audio), as a device index
    /// counts it; nil for the entries of ``DeviceList/other`` (shown with the full listing), so that
    /// the full listing never shifts an index.
    public var index: Int?
    /// The device argument that opens it: `/dev/video0`, `hw:CARD=Loopback,DEV=1`, `pulse:NAME`, `test`.
    public var name: String
    public var kind: Kind
    public var api: API
    /// `camera`, `microphone`, `monitor` (a PulseAudio sink monitor), or for devices that are
    /// neither, listed in ``DeviceList/other``: for V4L2 nodes that are not cameras
    /// `video-output`, `metadata-capture`, `metadata-output`, `vbi-capture`, `vbi-output`,
    /// `radio`, `sdr`, `touch`, `subdev`, `other`; `alsa-plugin` for an ALSA PCM that a package's
    /// configuration defines but that is no microphone (a rate converter such as `lavrate`, an
    /// up- or downmixer, the OSS or JACK bridge, `null`). An `alsa-plugin` PCM still opens by name.
    public var role: String
    /// A name for people: card name, PCM description, PulseAudio description.
    public var description: String
    /// The device `capture record` uses when none is named, or the server's default source.
    public var isDefault: Bool
    /// True for built-in test sources and PCMs that are not hardware (dsnoop, pulse, null).
    public var isVirtual: Bool
    /// Whether the current user may open it.
    public var accessible: Bool
    /// Why it is not accessible ("permission denied: ..."), nil when it is.
    public var reason: String?
    /// Devices of one physical device (a webcam's camera and microphone) share this id.
    public var group: String?
    public var v4l2: V4L2Details?
    public var alsa: ALSADetails?
    public var pulse: PulseDetails?
    /// The filter graph of a `lavfi:` source, as given.
    public var lavfiGraph: String?

    public init(
        index: Int? = nil, name: String, kind: Kind, api: API, role: String, description: String,
        isDefault: Bool = false, isVirtual: Bool = false, accessible: Bool = true,
        reason: String? = nil, group: String? = nil, v4l2: V4L2Details? = nil,
        alsa: ALSADetails? = nil, pulse: PulseDetails? = nil, lavfiGraph: String? = nil
    ) {
        self.index = index
        self.name = name
        self.kind = kind
        self.api = api
        self.role = role
        self.description = description
        self.isDefault = isDefault
        self.isVirtual = isVirtual
        self.accessible = accessible
        self.reason = reason
        self.group = group
        self.v4l2 = v4l2
        self.alsa = alsa
        self.pulse = pulse
        self.lavfiGraph = lavfiGraph
    }

    /// Writes every key that has a value, and `index` always: `null` marks the unnumbered
    /// entries of ``DeviceList/other`` instead of leaving the key out.
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(api, forKey: .api)
        try container.encode(role, forKey: .role)
        try container.encode(description, forKey: .description)
        try container.encode(isDefault, forKey: .isDefault)
        try container.encode(isVirtual, forKey: .isVirtual)
        try container.encode(accessible, forKey: .accessible)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(group, forKey: .group)
        try container.encodeIfPresent(v4l2, forKey: .v4l2)
        try container.encodeIfPresent(alsa, forKey: .alsa)
        try container.encodeIfPresent(lavfiGraph, forKey: .lavfiGraph)
        try container.encodeIfPresent(pulse, forKey: .pulse)
    }
}

/// What VIDIOC_QUERYCAP and sysfs say about a V4L2 node.
public struct V4L2Details: Codable, Hashable, Sendable {
    public var path: String
    /// A `/dev/v4l/by-id` (or else `by-path`) link to the node, when udev made one.
    public var stablePath: String?
    public var card: String
    public var driver: String
    public var busInfo: String
    /// True when the node captures through the multiplanar API only.
    public var multiplanar: Bool
    /// The capabilities of the whole physical device (`capabilities`), as v4l2-ctl names them.
    public var capabilities: [String]
    /// The capabilities of this node (`device_caps`), which decide its role.
    public var deviceCaps: [String]

    public init(
        path: String, stablePath: String?, card: String, driver: String, busInfo: String,
        multiplanar: Bool, capabilities: [String], deviceCaps: [String]
    ) {
        self.path = path
        self.stablePath = stablePath
        self.card = card
        self.driver = driver
        self.busInfo = busInfo
        self.multiplanar = multiplanar
        self.capabilities = capabilities
        self.deviceCaps = deviceCaps
    }
}

/// An ALSA capture PCM: a card's device, or a PCM from the ALSA configuration.
public struct ALSADetails: Codable, Hashable, Sendable {
    /// Card number, nil for configuration PCMs that name no card.
    public var cardIndex: Int?
    public var cardID: String?
    public var cardName: String?
    /// PCM device number on the card.
    public var device: Int?
    public var deviceName: String?
    public var subdevicesAvailable: Int?
    public var subdevicesTotal: Int?
    /// The `plughw:` form, which converts format, rate and channels in ALSA.
    public var plugName: String?

    public init(
        cardIndex: Int? = nil, cardID: String? = nil, cardName: String? = nil, device: Int? = nil,
        deviceName: String? = nil, subdevicesAvailable: Int? = nil, subdevicesTotal: Int? = nil,
        plugName: String? = nil
    ) {
        self.cardIndex = cardIndex
        self.cardID = cardID
        self.cardName = cardName
        self.device = device
        self.deviceName = deviceName
        self.subdevicesAvailable = subdevicesAvailable
        self.subdevicesTotal = subdevicesTotal
        self.plugName = plugName
    }

    enum CodingKeys: String, CodingKey {
        case cardIndex = "card_index", cardID = "card_id", cardName = "card_name", device
        case deviceName = "device_name", subdevicesAvailable = "subdevices_available"
        case subdevicesTotal = "subdevices_total", plugName = "plug_name"
    }
}

/// A PulseAudio source as the server describes it.
public struct PulseDetails: Codable, Hashable, Sendable {
    /// The server's source name, as `pulse:NAME` takes it.
    public var source: String
    /// True for the monitor of a sink (what the speakers play), not a microphone.
    public var monitor: Bool
    /// Sample spec, e.g. "s16le 2ch 44100Hz".
    public var sampleSpec: String
    /// Channel map, e.g. "front-left,front-right".
    public var channelMap: String

    public init(source: String, monitor: Bool, sampleSpec: String, channelMap: String) {
        self.source = source
        self.monitor = monitor
        self.sampleSpec = sampleSpec
        self.channelMap = channelMap
    }
}

/// Everything `capture list` found. JSON: `{"cameras": [...], "microphones": [...], "other": [...]}`.
public struct DeviceList: Codable, Hashable, Sendable {
    /// Cameras, numbered from 0: V4L2 capture nodes, then the test pattern.
    public var cameras: [Device]
    /// Microphones, numbered from 0: ALSA card devices, the ALSA configuration's microphones
    /// (`default`, `sysdefault`, `pulse`, `pipewire`, `dsnoop:...`, and every PCM the user's own
    /// files define: `~/.asoundrc`, `$XDG_CONFIG_HOME/alsa/asoundrc`, `/etc/asound.conf`, the
    /// files `ALSA_CONFIG_PATH` names), PulseAudio sources, then the test tone.
    public var microphones: [Device]
    /// Devices that are neither, with `index` nil: V4L2 nodes that are not cameras (their role
    /// says what they are), then the ALSA configuration's other PCMs (role `alsa-plugin`).
    /// Filled only when asked for (the full listing); empty otherwise.
    public var other: [Device]

    public init(cameras: [Device], microphones: [Device], other: [Device]) {
        self.cameras = cameras
        self.microphones = microphones
        self.other = other
    }
}

extension Device {
    /// True when `other` opens the same device under any of its names: the same V4L2 node (by
    /// its path with links resolved, `realpath`), the same ALSA card and device (`hw:` and
    /// `plughw:` alike), or the same name.
    public func sameDevice(as other: Device) -> Bool {
        guard api == other.api else { return false }
        if let mine = v4l2?.path, let theirs = other.v4l2?.path {
            return Self.resolved(mine) == Self.resolved(theirs)
        }
        if let mine = alsa, let theirs = other.alsa, let card = mine.cardIndex, let device = mine.device {
            return card == theirs.cardIndex && device == theirs.device
        }
        return name == other.name
    }

    /// The USB host controller a V4L2 camera hangs off, from its bus_info (`usb-0000:00:14.0-1.2`
    /// gives `usb-0000:00:14.0`); cameras on one controller share its bandwidth. Nil for others.
    public var usbController: String? {
        guard let bus = v4l2?.busInfo, bus.hasPrefix("usb-") else { return nil }
        let parts = bus.split(separator: "-", maxSplits: 2)
        return parts.count >= 2 ? parts[0...1].joined(separator: "-") : nil
    }

    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}

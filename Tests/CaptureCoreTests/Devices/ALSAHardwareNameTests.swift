import Testing

@testable import CaptureCore

@Suite struct ALSAHardwareNameTests {
    @Test(arguments: [
        ("hw:1,0", false, "1", 0, nil as Int?),
        ("hw:CARD=Loopback,DEV=1", false, "Loopback", 1, nil),
        ("hw:Loopback,1,0", false, "Loopback", 1, 0),
        ("plughw:CARD=1,DEV=0,SUBDEV=0", true, "1", 0, 0),
        ("hw:1", false, "1", 0, nil),
        ("hw", false, "0", 0, nil),
        ("hw:CARD=\"Dummy\",DEV=0", false, "Dummy", 0, nil),
        ("hw:card=PCH,dev=3", false, "PCH", 3, nil),
        ("hw:1,DEV=2", false, "1", 2, nil),
        ("hw:1,0,-1", false, "1", 0, nil),
    ])
    func parses(text: String, plug: Bool, card: String, device: Int, subdevice: Int?) throws {
        let name = try #require(ALSAHardwareName(text))
        #expect(name.plug == plug)
        #expect(name.card == card)
        #expect(name.device == device)
        #expect(name.subdevice == subdevice)
    }

    @Test(arguments: [
        "default", "dsnoop:1", "hwx:1,0", "hw:1,x", "hw:1,0,0,0", "hw:CARD=1,CARD=2", "hw:FOO=1", "hw:1,,0",
        "plug:hw", "hw:1,-2",
    ])
    func rejectsOtherNames(text: String) {
        #expect(ALSAHardwareName(text) == nil)
    }

    @Test func numberAndIdFormsAgreeOnDevice() throws {
        let byNumber = try #require(ALSAHardwareName("hw:1,0"))
        let byID = try #require(ALSAHardwareName("hw:CARD=Loopback,DEV=0"))
        #expect(byNumber.device == byID.device && byNumber.subdevice == byID.subdevice)
        #expect(ALSAHardwareName.canonical(plug: false, cardID: "Loopback", device: 0) == "hw:CARD=Loopback,DEV=0")
        #expect(
            ALSAHardwareName.canonical(plug: true, cardID: "Loopback", device: 1, subdevice: 0)
                == "plughw:CARD=Loopback,DEV=1,SUBDEV=0")
    }

    @Test(arguments: [
        ("hw:CARD=Loopback,DEV=0", true), ("plughw:CARD=Loopback,DEV=0", true), ("sysdefault:CARD=Dummy", true),
        ("front:CARD=PCH,DEV=0", true), ("surround51:CARD=PCH,DEV=0", true), ("dsnoop:CARD=PCH,DEV=0", false),
        ("default", false), ("hw", false), ("pulse", false),
    ])
    func cardDuplicates(name: String, duplicate: Bool) {
        #expect(ALSAConfigurationPCMs.isCardDuplicate(name) == duplicate)
    }

    @Test(arguments: [
        ("usbstream:CARD=Loopback", true), ("dmix:CARD=PCH,DEV=0", true), ("hdmi:CARD=PCH,DEV=0", true),
        ("iec958:CARD=PCH", true), ("dsnoop:CARD=PCH,DEV=0", false), ("default:CARD=PCH", false), ("dmix", false),
    ])
    func playbackOnlyFamilies(name: String, playbackOnly: Bool) {
        #expect(ALSAConfigurationPCMs.isPlaybackOnly(name) == playbackOnly)
    }

    @Test func cardArgument() throws {
        let argument = try #require(ALSAConfigurationPCMs.cardArgument("dsnoop:CARD=Loopback,DEV=1"))
        #expect(argument.card == "Loopback" && argument.device == 1)
        #expect(ALSAConfigurationPCMs.cardArgument("default") == nil)
    }
}

import Testing

@testable import CaptureCore

/// Parsing `NAME=VALUE` for ALSA mixer elements, over snd-dummy's `Mic` element as libasound
/// reads it (common volume -50..100 raw, -45..0 dB, a capture switch) and a capture source enum.
@Suite struct MixerWriteTests {
    let mic = MixerElement(
        name: "Mic", index: 0, capabilities: ["cvolume", "cswitch"], minimum: -50, maximum: 100, minimumDB: -45,
        maximumDB: 0, items: [], channels: [])
    let source = MixerElement(
        name: "Capture Source", index: 0, capabilities: ["enum"], items: ["Mic", "Line", "CD"], channels: [])

    @Test(arguments: [
        ("20", [MixerWrite.raw(20)]), ("-50", [.raw(-50)]), ("0%", [.raw(-50)]), ("100%", [.raw(100)]),
        ("50%", [.raw(25)]), ("-6dB", [.centiDB(-600)]), ("-6.5db", [.centiDB(-650)]), ("0dB", [.centiDB(0)]),
        ("on", [.captureSwitch(true)]), ("nocap", [.captureSwitch(false)]),
        ("-6dB,on", [.centiDB(-600), .captureSwitch(true)]),
    ])
    func volumeAndSwitch(text: String, expected: [MixerWrite]) throws {
        #expect(try MixerWrite.parse(text, for: mic) == expected)
    }

    @Test func enumItemsByName() throws {
        #expect(try MixerWrite.parse("line", for: source) == [.item(1)])
        #expect(throws: ControlValueParser.Rejection.self) { try MixerWrite.parse("Phono", for: source) }
    }

    @Test(arguments: [
        ("101", "is out of range; Mic takes -50 to 100 (raw), 0% to 100% or -45.00dB to 0.00dB"),
        ("-51", "is out of range"), ("-46dB", "is out of range; Mic takes -45.00dB to 0.00dB"),
        ("120%", "is out of range; percentages run 0% to 100%"), ("loud", "is not a value for Mic"), ("", "is empty"),
    ])
    func refusals(text: String, reason: String) {
        do {
            _ = try MixerWrite.parse(text, for: mic)
            Issue.record("\(text) was taken")
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
        }
    }

    @Test func aSwitchOrVolumeTheElementLacks() {
        #expect(throws: ControlValueParser.Rejection.self) { try MixerWrite.parse("on", for: source) }
        #expect(throws: ControlValueParser.Rejection.self) { try MixerWrite.parse("50%", for: source) }
    }
}

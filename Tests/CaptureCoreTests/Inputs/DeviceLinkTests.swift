import Testing

@testable import CaptureCore

@Suite struct DeviceLinkTests {
    @Test func lossesAndReturnsAddUp() {
        let link = DeviceLink()
        #expect(!link.waiting)
        #expect(link.totals(now: 0) == (0, 0))
        link.lose(at: 1_000_000, reason: "unplugged")
        #expect(link.waiting)
        // A wait still going on counts up to now.
        #expect(link.totals(now: 1_500_000) == (0, 0.5))
        link.back(at: 3_300_000)
        #expect(!link.waiting)
        #expect(link.backAt == 3_300_000)
        #expect(link.lastLostAt == 1_000_000)
        link.lose(at: 5_000_000, reason: "input/output error")
        // A second loss while away changes nothing: a stall found, then its read failing.
        link.lose(at: 5_500_000, reason: "later")
        #expect(link.lostAt == 5_000_000)
        link.back(at: 6_000_000)
        #expect(link.lostAt == nil && link.lastLostAt == 5_000_000)
        #expect(link.totals(now: 9_000_000) == (2, 3.3))
        let events = link.takeEvents()
        #expect(events.count == 4)
        if case .back(let seconds) = events[1] { #expect(abs(seconds - 2.3) < 1e-9) } else { Issue.record("\(events)") }
        #expect(link.takeEvents().isEmpty)
    }

    @Test func aReturnWithoutALossIsIgnored() {
        let link = DeviceLink()
        link.back(at: 1_000_000)
        #expect(link.totals(now: 2_000_000) == (0, 0))
        #expect(link.backAt == nil)
        #expect(link.takeEvents().isEmpty)
    }
}

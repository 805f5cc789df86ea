import FoundationEssentials
import Testing

@testable import CaptureCore

/// The preview server's pure parts: reading a request head within its limits, the token check,
/// the address, the picture size, and the hub's handoff (who gets which picture, what is dropped).
@Suite struct PreviewServerPartsTests {
    static func read(_ text: String) -> HTTPRequest.Reading { HTTPRequest.read(Array(text.utf8)) }

    @Test func aWholeHeadIsRead() throws {
        let reading = Self.read(
            "GET /stream?action=stream&token=a%2Bb+c HTTP/1.1\r\nHost: x\r\nAuthorization:  Bearer t \r\n\r\n")
        guard case .request(let request) = reading else {
            Issue.record("not read: \(reading)")
            return
        }
        #expect(request.method == "GET" && request.path == "/stream")
        #expect(request.query == ["action": "stream", "token": "a+b c"])
        #expect(request.headers == ["host": "x", "authorization": "Bearer t"])
    }

    @Test(arguments: [
        "\u{1}\u{2}junk\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET nothing HTTP/1.1\r\n\r\n",
        "get / HTTP/1.1\r\n\r\n", "GET /%zz HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n",
        "GET / HTTP/1.1\r\n" + String(repeating: "X: 1\r\n", count: 65) + "\r\n",
        "GET /?t=%e2%28 HTTP/1.1\r\n\r\n",
    ])
    func malformedHeadsAreBad(text: String) {
        guard case .bad = Self.read(text) else {
            Issue.record("taken: \(text.debugDescription)")
            return
        }
    }

    @Test func aHeadPastTheLimitIsBadBeforeItEnds() {
        #expect(Self.read("GET / HTTP/1.1\r\nX: ") == .incomplete)
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: HTTPRequest.maxHeadBytes)
        #expect(Self.read(long) == .bad("request head over 8192 bytes"))
    }

    @Test func theTokenComesInAHeaderOrTheQuery() throws {
        let access = PreviewAccess(token: "secret")
        func allows(_ text: String) -> Bool {
            guard case .request(let request) = Self.read(text) else { return false }
            return access.allows(request)
        }
        #expect(allows("GET / HTTP/1.1\r\nAuthorization: Bearer secret\r\n\r\n"))
        #expect(allows("GET /?token=secret HTTP/1.1\r\n\r\n"))
        #expect(!allows("GET / HTTP/1.1\r\n\r\n"))
        #expect(!allows("GET /?token=secreT HTTP/1.1\r\n\r\n"))
        #expect(!allows("GET /?token=secret2 HTTP/1.1\r\n\r\n"))
        #expect(!allows("GET / HTTP/1.1\r\nAuthorization: Basic secret\r\n\r\n"))
        #expect(PreviewAccess(token: nil).allows(HTTPRequest(method: "GET", path: "/", query: [:], headers: [:])))
        #expect(PreviewAccess.same(Array("ab".utf8), Array("ab".utf8)))
        #expect(!PreviewAccess.same([], Array("ab".utf8)) && !PreviewAccess.same(Array("abc".utf8), Array("ab".utf8)))
    }

    @Test func addresses() {
        #expect(PreviewSettings.hostAndPort("127.0.0.1:8080")! == ("127.0.0.1", 8080))
        #expect(PreviewSettings.hostAndPort(":9000")! == ("127.0.0.1", 9000))
        #expect(PreviewSettings.hostAndPort("8081")! == ("127.0.0.1", 8081))
        #expect(PreviewSettings.hostAndPort("localhost:80")! == ("127.0.0.1", 80))
        for bad in ["", "127.0.0.1:0", "127.0.0.1:65536", "256.0.0.1:80", "example.com:80", "[::1]:80", "1.2.3:80"] {
            #expect(PreviewSettings.hostAndPort(bad) == nil, "\(bad)")
        }
        #expect(PreviewSettings(host: "127.0.0.2").isLoopback && !PreviewSettings(host: "0.0.0.0").isLoopback)
    }

    @Test func picturesShrinkToTheLimitKeepingTheirShape() {
        #expect(PreviewEncoder.size(width: 1280, height: 720, maxWidth: 640, maxHeight: nil) == (640, 360))
        #expect(PreviewEncoder.size(width: 320, height: 240, maxWidth: 640, maxHeight: nil) == (320, 240))
        #expect(PreviewEncoder.size(width: 1920, height: 1080, maxWidth: 640, maxHeight: 240) == (426, 240))
        #expect(PreviewEncoder.size(width: 641, height: 481, maxWidth: 640, maxHeight: nil) == (640, 480))
    }

    /// Nothing is wanted without a viewer; with one, pictures come on the rate's grid of capture
    /// times, whatever the camera's rate.
    @Test func picturesAreWantedOnlyWhileWatchedOnTheRatesGrid() {
        let hub = PreviewHub(rate: 5)
        #expect(!hub.wants(time: 0))
        let viewer = hub.join()
        // A 30 fps camera, 300 frames: a picture at 0 and one for each 200 ms after it, each the
        // frame nearest its time (a 30th early at most), so 51 over the 10 s, 5 a second.
        let taken = (0..<300).map { Int64($0) * 33_333 }.filter { hub.wants(time: $0) }
        #expect(taken.count == 51)
        let gaps = zip(taken.dropFirst(), taken).map { $0 - $1 }
        #expect(gaps.allSatisfy { (166_665...233_331).contains($0) })
        hub.leave(viewer)
        #expect(!hub.wants(time: 2_000_000))
    }

    /// A camera at the preview's own rate, its frames a few milliseconds early or late: every
    /// frame is taken.
    @Test func aCameraAtThePreviewsRateLosesNoFrameToJitter() {
        let hub = PreviewHub(rate: 30)
        _ = hub.join()
        let jitter: [Int64] = [0, -3000, 2500, -1500, 4000, -4000]
        let taken = (0..<300).filter { hub.wants(time: Int64($0) * 33_333 + jitter[$0 % jitter.count]) }
        #expect(taken.count == 300)
    }

    /// A viewer that does not take its pictures keeps only the newest two; the others get all.
    @Test func aSlowViewerLosesItsOldestPictures() {
        let hub = PreviewHub(rate: 5)
        let slow = hub.join()
        for number in 1...5 { hub.publish(jpeg: [UInt8(number)], width: 2, height: 2) }
        let fast = hub.join()
        hub.publish(jpeg: [6], width: 2, height: 2)
        let soon = Date().addingTimeInterval(0.05)
        #expect(hub.next(for: slow, until: soon)?.jpeg == [5])
        #expect(hub.next(for: slow, until: soon)?.jpeg == [6])
        #expect(hub.next(for: slow, until: soon) == nil)
        #expect(hub.next(for: fast, until: soon)?.number == 6)
        hub.close()
        #expect(hub.next(for: fast, until: Date().addingTimeInterval(5)) == nil)
    }
}

import Glibc

extension SegmentedOutput {
    /// One file of the series. Used by the loop's thread until it is handed whole to a finisher,
    /// after which nothing else touches it.
    final class Segment: @unchecked Sendable {
        let number: Int
        let container: OutputContainer
        /// Set when its header is written.
        var path = ""
        /// Where it starts on the recording's clock, microseconds.
        var start: Int64 = 0
        /// Per stream, the ticks that become its 0: the cut for video, the first packet's start
        /// for audio (within one audio packet of the cut), so that both start at 0.
        var origins: [Int64?] = []
        var frames = 0
        var samples: Int64 = 0
        /// The end of its last packet, microseconds on the recording's clock.
        var end: Int64 = 0
        /// Set once no more video (audio) can come for it: the cut's keyframe (an audio packet
        /// past the cut) went to the next one.
        var videoDone = false
        var audioDone = false
        /// Holds the file's `SegmentLock` from its header until it is finished; -1 when none.
        var lockDescriptor: Int32 = -1

        init(number: Int, container: OutputContainer) {
            self.number = number
            self.container = container
        }

        deinit { unlock() }

        /// Writes its header to a new file at `path`, starting at `time` on the recording's clock
        /// with `origins` (`OutputFile.create`); locked (`SegmentLock`) before it has its name, so
        /// another recorder's retention never finds it unlocked.
        ///
        /// - Throws: `.outputExists`, `.cannotCreate` or `.io` when the file cannot be made.
        func create(
            path: String, at time: Int64, origins: [Int64?], options: [String: String], replacing: Bool,
            formatName: String
        ) throws(CaptureError) {
            self.path = path
            start = time
            end = time
            self.origins = origins
            do {
                try OutputFile(path: path).create(container, options: options, replacing: replacing) {
                    self.lockDescriptor = SegmentLock.hold($0)
                }
            } catch {
                unlock()
                throw .creatingFailed(error, path: path, formatName: formatName)
            }
        }

        /// Drops the file's `SegmentLock`: another recorder's retention may delete it from now on.
        func unlock() {
            SegmentLock.release(lockDescriptor)
            lockDescriptor = -1
        }

        /// Writes the trailer, moves an MP4's index to the front, and says what the file holds.
        func finish(formatName: String, hasVideo: Bool, hasAudio: Bool) -> RecordingEvent {
            var problem: String?
            do {
                try container.finish()
                if FastStartRewrite.muxers.contains(formatName) {
                    try FastStartRewrite.rewrite(path: path, formatName: formatName, spans: container.spans)
                }
            } catch {
                problem = CaptureError.writeCause(error)
            }
            var status = stat()
            let size = stat(path, &status) == 0 ? Int64(status.st_size) : container.bytesWritten
            return RecordingEvent(
                event: .segmentClosed, path: path, number: number, start: SegmentedOutput.seconds(start),
                duration: SegmentedOutput.seconds(end - start), frames: hasVideo ? frames : nil,
                samples: hasAudio ? samples : nil, size: size, problem: problem)
        }
    }
}

import FoundationEssentials
import Glibc

/// Finds which processes hold a device node open, the way `fuser` does: by reading the
/// `/proc/PID/fd` links. Processes this user may not inspect are skipped, not reported.
enum ALSAHolders {
    /// The processes (other than this one) with `node` open, as "arecord (pid 1234)", by pid.
    ///
    /// - Parameter node: a device path such as `/dev/snd/pcmC1D1c`.
    static func describe(node: String) -> [String] {
        let fm = FileManager.default
        let me = getpid()
        guard let entries = try? fm.contentsOfDirectory(atPath: "/proc") else { return [] }
        var holders: [(pid: Int32, text: String)] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != me else { continue }
            guard let fds = try? fm.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { continue }
            let holds = fds.contains { fd in
                (try? fm.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) == node
            }
            guard holds else { continue }
            // A process names itself: its name may be any bytes.
            let bytes = fm.contents(atPath: "/proc/\(pid)/comm") ?? Data()
            let comm = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
            holders.append((pid, "\(comm.isEmpty ? "?" : comm) (pid \(pid))"))
        }
        return holders.sorted { $0.pid < $1.pid }.map(\.text)
    }
}

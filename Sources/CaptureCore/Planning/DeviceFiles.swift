/// A per-device output: a file name with a device field writes one file per device, each with
/// that device's stream only, all on the recording's one clock (`cam%d.mp4`: `cam0.mp4`,
/// `cam1.mp4`, ...).
///
/// Fields: `%d` the device's number (cameras first, then microphones, each in the order given,
/// from 0), `%{index}` the same, `%{name}` its name. In a segment template `%d` is strftime's day
/// of the month, as it always was there, so the number is `%{index}`; `%%` stays for the template.
/// Pure; thread-safe.
enum DeviceFiles {
    /// True when `pattern`'s file name holds a device field.
    static func isTemplate(_ pattern: String, segments: Bool) -> Bool {
        let name = pattern.pathLastComponent
        return name.contains("%{name}") || name.contains("%{index}") || (!segments && fields(name).contains("d"))
    }

    /// Refuses a `%{...}` in the file name that is no device field, and in the name of one file
    /// (no segments or clips, whose templates check their own fields) any `%` but `%d` and `%%`:
    /// a typo, or ffmpeg's `%02d`, would otherwise write every device into one file of that
    /// literal name.
    ///
    /// - Throws: `.usage` (64).
    static func checkFields(_ pattern: String, timed: Bool) throws(CaptureError) {
        let name = Array(pattern.pathLastComponent)
        var index = 0
        while index + 1 < name.count {
            guard name[index] == "%" else {
                index += 1
                continue
            }
            if name[index + 1] == "{" {
                let field = String(name[index...].prefix { $0 != "}" })
                if field != "%{name" && field != "%{index" {
                    let closed = index + field.count < name.count ? "}" : ""
                    throw .usage(
                        "\(pattern): \(field)\(closed) is no field; a file per device takes %d, %{index} or %{name}")
                }
            } else if !timed && name[index + 1] != "d" && name[index + 1] != "%" {
                // Shown up to its letter: ffmpeg's `%02d` as written.
                let flags = name[(index + 1)...].prefix { !$0.isLetter }
                let field = "%" + String(flags) + String(name[(index + 1 + flags.count)...].prefix(1))
                throw .usage(
                    "\(pattern): \(field) is no field of a file name; a file per device takes %d, "
                        + "%{index} or %{name}, and %% writes a %")
            }
            index += 2
        }
    }

    /// The fields (`%X`) in `name`, `%%` skipped.
    private static func fields(_ name: String) -> [Character] {
        var found: [Character] = []
        var index = name.startIndex
        while index < name.endIndex {
            let next = name.index(after: index)
            if name[index] == "%", next < name.endIndex {
                found.append(name[next])
                index = name.index(after: next)
            } else {
                index = next
            }
        }
        return found
    }

    /// The file (or segment template) of device `index` named `name`.
    static func path(_ pattern: String, index: Int, name: String, segments: Bool) -> String {
        let folder = pattern.pathDirectory
        let fileName = pattern.pathLastComponent
        var out = ""
        var rest = Substring(fileName)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            rest = rest[percent...]
            if rest.hasPrefix("%{name}") {
                out += safe(name)
                rest = rest.dropFirst("%{name}".count)
            } else if rest.hasPrefix("%{index}") || (!segments && rest.hasPrefix("%d")) {
                out += "\(index)"
                rest = rest.dropFirst(rest.hasPrefix("%d") ? 2 : "%{index}".count)
            } else if !segments && rest.hasPrefix("%%") {
                out += "%"
                rest = rest.dropFirst(2)
            } else {
                // Another field: the segment template's, or literal in a plain file name.
                out += rest.prefix(2)
                rest = rest.dropFirst(2)
            }
        }
        out += rest
        return folder.isEmpty ? out : folder.pathAppending(out)
    }

    /// A device's name as part of a file name: no folder separator, no `%` a segment template
    /// would read as a field, no `:` that FFmpeg's tools would read as a protocol (`hw:1.mkv`),
    /// no leading dot that would hide the file.
    static func safe(_ name: String) -> String {
        let mapped = String(name.map { $0 == "/" || $0 == "%" || $0 == ":" || $0.isNewline ? "_" : $0 })
        return mapped.hasPrefix(".") ? "_" + mapped.dropFirst() : mapped
    }

    /// The file of each device, cameras first.
    ///
    /// - Throws: `.usage` (64) when two devices would write one file (two of the same name with
    ///   `%{name}` only).
    static func paths(_ pattern: String, names: [String], segments: Bool) throws(CaptureError) -> [String] {
        let paths = names.enumerated().map { path(pattern, index: $0.offset, name: $0.element, segments: segments) }
        for (index, path) in paths.enumerated() where paths[..<index].contains(path) {
            throw .usage(
                "\(pattern): two devices would write \(path) (both are named '\(names[index])'); add %{index} to the name"
            )
        }
        return paths
    }
}

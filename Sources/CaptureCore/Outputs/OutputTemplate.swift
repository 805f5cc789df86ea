import FoundationEssentials
import Glibc

/// A name pattern for a series of files (segments, snapshots): strftime fields for the time a file
/// starts, `%n` for its number, `%%` for a percent sign.
///
/// `cam-%Y%m%d-%H%M%S.mp4` names each file by its start time; `clip-%n.mkv` numbers them
/// (`clip-0001.mkv`, ..., `clip-10000.mkv`: at least four digits). A pattern without any field gets
/// `-%n` before its extension, so `clip.mp4` gives `clip-0001.mp4`, `clip-0002.mp4`. Fields stand
/// in the file name only: the folder is fixed, which is what lets a retention policy find the
/// series' older files. Times are local unless `utc`. A pure value; thread-safe.
public struct OutputTemplate: Hashable, Sendable {
    /// The pattern as given.
    public let pattern: String
    /// The folder every file goes to ("" for the current one).
    public let directory: String
    /// The file-name part, with `-%n` added when the pattern had no field.
    public let fileName: String
    /// True when the pattern as given had at least one field.
    public let hadFields: Bool
    /// True when times are written in UTC rather than local time.
    public let utc: Bool

    /// strftime conversions a file name may hold: numbers, names, and time zones. Left out:
    /// those whose text may hold a slash or a newline (`%D`, `%c`, `%x`, `%t`), which would make
    /// another folder or a name a shell chokes on, and `%n`, which is the file's number here.
    public static let timeFields: Set<Character> = [
        "a", "A", "b", "B", "C", "d", "e", "F", "g", "G", "h", "H", "I", "j", "k", "l", "m", "M", "p", "R",
        "s", "S", "T", "u", "U", "V", "w", "W", "y", "Y", "z", "Z",
    ]

    /// Parses `pattern`.
    ///
    /// - Throws: `CaptureError.usage` (64) for a `%` that ends the pattern or starts an unknown
    ///   field, a field in the folder part, or an empty file name.
    public init(_ pattern: String, utc: Bool = false) throws(CaptureError) {
        let slash = pattern.lastIndex(of: "/")
        let directory = slash.map { String(pattern[...$0]) } ?? ""
        var name = slash.map { String(pattern[pattern.index(after: $0)...]) } ?? pattern
        if directory.contains("%") {
            throw .usage("\(pattern): fields (%) go in the file name only, not in the folder")
        }
        if name.isEmpty { throw .usage("\(pattern): the template names no file") }
        var fields = 0
        var index = name.startIndex
        while index < name.endIndex {
            if name[index] == "%" {
                let next = name.index(after: index)
                guard next < name.endIndex else {
                    throw .usage("\(pattern): a '%' ends the template; write %% for a '%'")
                }
                let field = name[next]
                if field == "n" || Self.timeFields.contains(field) {
                    fields += 1
                } else if field != "%" {
                    throw .usage(
                        "\(pattern): %\(field) is no template field; use strftime fields such as %Y %m %d %H %M %S, "
                            + "%n for the number, %% for a '%', %{index} or %{name} for a file per device")
                }
                index = name.index(after: next)
            } else {
                index = name.index(after: index)
            }
        }
        hadFields = fields > 0
        if !hadFields {
            let ext = name.pathExtension
            let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
            name = stem + "-%n" + (ext.isEmpty ? "" : "." + ext)
        }
        self.pattern = pattern
        self.directory = directory
        self.fileName = name
        self.utc = utc
    }

    /// True when names hold the file's number (`%n`), which tells every file apart.
    public var numbersFiles: Bool { fields.contains("n") }

    /// Seconds between two different names from the finest time field (`%S` 1, `%M` 60, `%H`
    /// 3600, `%d` a day ...); nil when no field changes with time. Files started closer together
    /// than this, without `%n`, would get the same name.
    public var finestPeriod: Double? {
        let periods: [(Set<Character>, Double)] = [
            (["S", "s", "T"], 1), (["M", "R"], 60), (["H", "k", "l", "I"], 3600),
            (["d", "e", "j", "a", "A", "u", "w", "F"], 86400), (["U", "V", "W"], 7 * 86400),
            (["m", "b", "B", "h"], 28 * 86400), (["y", "Y", "C", "g", "G"], 365 * 86400),
        ]
        return periods.first { !$0.0.isDisjoint(with: fields) }?.1
    }

    /// The field letters the file name holds.
    private var fields: Set<Character> {
        var found = Set<Character>()
        var characters = fileName.makeIterator()
        while let c = characters.next() {
            guard c == "%", let field = characters.next() else { continue }
            if field != "%" { found.insert(field) }
        }
        return found
    }

    /// The path of file `number` (1 for the first) started at `date`.
    public func path(number: Int, date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
        var out = directory
        var characters = fileName.makeIterator()
        while let c = characters.next() {
            guard c == "%", let field = characters.next() else {
                out.append(c)
                continue
            }
            switch field {
            case "%": out.append("%")
            case "n": out += Self.number(number)
            default: out += Self.strftime(field, &parts)
            }
        }
        return out
    }

    /// `number` with at least four digits.
    static func number(_ number: Int) -> String {
        let digits = String(number)
        return digits.count >= 4 ? digits : String(repeating: "0", count: 4 - digits.count) + digits
    }

    private static func strftime(_ field: Character, _ parts: inout tm) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let count = Glibc.strftime(&buffer, buffer.count, "%\(field)", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `name` (a file name, no folder) could have been made by this template: each
    /// field matched by what it writes (digits for numbers, letters for names, signs for zones).
    ///
    /// This is how a retention policy tells the series' files from others in the same folder.
    public func matches(fileName candidate: String) -> Bool {
        candidate.wholeMatch(of: matcher) != nil
    }

    /// `fileName` as a regular expression.
    private var matcher: Regex<AnyRegexOutput> {
        var expression = ""
        var characters = fileName.makeIterator()
        while let c = characters.next() {
            guard c == "%", let field = characters.next() else {
                // Outside a field every character stands for itself.
                expression += "\\^$.|?*+()[]{}/-".contains(c) ? "\\\(c)" : String(c)
                continue
            }
            switch field {
            case "%": expression += "%"
            // What the fields can write, and no more: a number from 0001 (never 0000, never a
            // zero before five digits), months 01-12, days 01-31, hours 00-23 ...
            case "n": expression += "(?:(?!0000)[0-9]{4}|[1-9][0-9]{4,})"
            case "m": expression += "(?:0[1-9]|1[0-2])"
            case "d": expression += "(?:0[1-9]|[12][0-9]|3[01])"
            case "H": expression += "(?:[01][0-9]|2[0-3])"
            case "M": expression += "[0-5][0-9]"
            case "S": expression += "(?:[0-5][0-9]|60)"
            case "Y", "G": expression += "[0-9]{4,}"
            case "s": expression += "-?[0-9]+"
            case "j": expression += "[0-9]{3}"
            case "u", "w": expression += "[0-9]"
            case "C", "g", "I", "U", "V", "W", "y": expression += "[0-9]{2}"
            case "e", "k", "l": expression += "[ 0-9][0-9]"
            case "F": expression += "[0-9]{4,}-[0-9]{2}-[0-9]{2}"
            case "R": expression += "[0-9]{2}:[0-9]{2}"
            case "T": expression += "[0-9]{2}:[0-9]{2}:[0-9]{2}"
            case "z": expression += "[+-][0-9]{4}"
            // Names depend on the locale: any run of letters (and the dots some abbreviate with).
            default: expression += "[^/]+?"
            }
        }
        // The expression is built from escaped text and fixed classes only.
        return try! Regex(expression)
    }
}

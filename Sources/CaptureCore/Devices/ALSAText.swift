internal import CALSA
import Glibc

/// Text that comes out of libasound, repaired so it is always valid UTF-8.
enum ALSAText {
    /// A string from a C string that libasound still owns (card names, format names).
    ///
    /// Bad bytes (a card name in Latin-1, say) become U+FFFD instead of ending the string or
    /// making the JSON invalid.
    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string from a C string that the caller must free (what `snd_device_name_get_hint`
    /// returns), freed here.
    static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return string(pointer)
    }

    /// libasound's message for a negative error code (`snd_strerror`).
    static func error(_ code: Int32) -> String {
        string(snd_strerror(code)) ?? "error \(code)"
    }
}

internal import CFFmpeg

/// Builds an `AVDictionary` of options for an FFmpeg open call and frees it afterwards.
///
/// - Parameters:
///   - options: option names and values, as FFmpeg's `-name value` takes them.
///   - body: the call; it may consume entries, as `avformat_open_input` and `avcodec_open2` do.
/// - Returns: what `body` returns, and the names of options the call did not use.
func withOptionDictionary<T, E: Error>(
    _ options: [String: String], _ body: (inout OpaquePointer?) throws(E) -> T
) throws(E) -> (result: T, unused: [String]) {
    var dictionary: OpaquePointer?
    for (key, value) in options.sorted(by: { $0.key < $1.key }) {
        av_dict_set(&dictionary, key, value, 0)
    }
    defer { av_dict_free(&dictionary) }
    let result = try body(&dictionary)
    var unused: [String] = []
    var entry: UnsafeMutablePointer<AVDictionaryEntry>?
    while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
        unused.append(String(cString: next.pointee.key))
        entry = next
    }
    return (result, unused)
}

/// A C string from FFmpeg as Swift text; invalid UTF-8 becomes U+FFFD so JSON stays valid.
func repairedString(_ pointer: UnsafePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

extension Rational {
    init(_ value: AVRational) { self.init(Int(value.num), Int(value.den)) }
    var av: AVRational { AVRational(num: Int32(numerator), den: Int32(denominator)) }
}

/// The time base of every session timestamp: microseconds.
let microseconds = AVRational(num: 1, den: 1_000_000)

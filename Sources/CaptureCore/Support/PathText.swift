// Path arithmetic with `NSString`'s rules, on plain strings: `NSString` is in full Foundation,
// which capture does not link. A path is text here, never resolved against the file system or the
// working directory.
extension String {
    /// The path without its last component, as `NSString.deletingLastPathComponent`: `"a/b.mp4"`
    /// gives `"a"`, `"/b.mp4"` gives `"/"`, `"b.mp4"` gives `""`.
    package var pathDirectory: String {
        let path = withoutTrailingSlashes
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let directory = String(path[..<slash]).withoutTrailingSlashes
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of the path, as `NSString.lastPathComponent`: `"a/b.mp4/"` gives
    /// `"b.mp4"`, `"/"` gives `"/"`.
    package var pathLastComponent: String {
        let path = withoutTrailingSlashes
        guard let slash = path.lastIndex(of: "/") else { return path }
        let last = String(path[path.index(after: slash)...])
        return last.isEmpty ? "/" : last
    }

    /// The path with `component` added after one slash, as `NSString.appendingPathComponent(_:)`.
    package func pathAppending(_ component: String) -> String {
        if isEmpty { return component }
        return hasSuffix("/") ? self + component : self + "/" + component
    }

    /// The extension of the last component without its dot, as `NSString.pathExtension`:
    /// `"a/b.MP4"` gives `"MP4"`, `".mp4"` and `"b"` give `""`.
    package var pathExtension: String {
        let last = pathLastComponent
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// The path without trailing slashes, except a lone `/`.
    private var withoutTrailingSlashes: String {
        var path = Substring(self)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}

internal import CALSA

/// A configuration tree of our own (`snd_config_top`), apart from libasound's global one: files
/// parsed into it are only parsed. Their hooks do not run and no other file is pulled in beyond
/// their own `<...>` includes, so the tree holds what those files define themselves.
final class ALSAConfigTree {
    private let root: OpaquePointer

    /// An empty tree; nil when libasound cannot allocate one (`snd_config_top`).
    init?() {
        var top: OpaquePointer?
        guard snd_config_top(&top) >= 0, let top else { return nil }
        root = top
    }

    deinit { snd_config_delete(root) }

    /// Parses the file at `path` into the tree (`snd_input_stdio_open`, `snd_config_load`).
    ///
    /// - Returns: false when the file cannot be opened (a missing file is the usual case) or does
    ///   not parse; libasound reports a syntax error through its error handler, so the line reaches
    ///   the library log. What a broken file defined before the error may stay in the tree.
    @discardableResult
    func load(path: String) -> Bool {
        var input: OpaquePointer?
        guard snd_input_stdio_open(&input, path, "r") >= 0, let input else { return false }
        defer { snd_input_close(input) }
        return snd_config_load(root, input) >= 0
    }

    /// The ids of the entries in the compound at `key`, in file order: `"pcm"` gives the names of
    /// the PCMs the loaded files define (`pcm.!default` gives `default`). Empty when there is no
    /// such compound. Wraps `snd_config_search` and the `snd_config_iterator_*` walk.
    func keys(of key: String) -> [String] {
        var compound: OpaquePointer?
        guard snd_config_search(root, key, &compound) >= 0, let compound,
            snd_config_get_type(compound) == SND_CONFIG_TYPE_COMPOUND
        else { return [] }
        var keys: [String] = []
        var cursor = snd_config_iterator_first(compound)
        let end = snd_config_iterator_end(compound)
        while cursor != end, let entry = snd_config_iterator_entry(cursor) {
            cursor = snd_config_iterator_next(cursor)
            var id: UnsafePointer<CChar>?
            if snd_config_get_id(entry, &id) >= 0, let name = ALSAText.string(id) { keys.append(name) }
        }
        return keys
    }
}

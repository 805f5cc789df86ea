internal import CALSA
import FoundationEssentials
import Glibc

/// The ALSA configuration files written on this machine rather than shipped by packages, and the
/// PCMs they define.
///
/// Packages define their PCMs in libasound's own `alsa.conf` and in the `conf.d` directories it
/// loads (rate converters, up/downmixers, OSS and JACK bridges, `null`); people define theirs in
/// the files named here. `capture list` counts the second kind as microphones.
enum ALSAUserConfiguration {
    /// The files whose PCM definitions belong to the machine's users, in the order libasound reads
    /// them; missing ones are left in (they are skipped when loaded).
    ///
    /// These are the files `alsa.conf` loads after the `conf.d` directories: the administrator's
    /// `/etc/asound.conf` (else `/usr/etc/asound.conf`), `~/.asoundrc`, and
    /// `$XDG_CONFIG_HOME/alsa/asoundrc` (`~/.config` when the variable is unset or empty, as
    /// alsa.conf's `getenv` default has it). When `ALSA_CONFIG_PATH` is set and not empty,
    /// libasound reads the files it names (separated by `:` or space, up to the first empty
    /// entry) instead of `alsa.conf`: those count too, except `alsa.conf` itself should it be
    /// named. `~/` is expanded with `home`, as libasound expands it with `$HOME`.
    ///
    /// - Parameters:
    ///   - environment: the process environment (`ALSA_CONFIG_PATH`, `XDG_CONFIG_HOME`).
    ///   - home: the home folder.
    ///   - systemConfiguration: libasound's top file, `<snd_config_topdir()>/alsa.conf`.
    static func files(environment: [String: String], home: String, systemConfiguration: String) -> [String] {
        func expand(_ path: String) -> String {
            path.hasPrefix("~/") ? home + path.dropFirst(1) : path
        }
        let administrator =
            ["/etc/asound.conf", "/usr/etc/asound.conf"]
            .first { FileManager.default.fileExists(atPath: $0) } ?? "/etc/asound.conf"
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "~/.config"
        var files = [administrator, expand("~/.asoundrc"), expand(xdg + "/alsa/asoundrc")]
        if let path = environment["ALSA_CONFIG_PATH"], !path.isEmpty {
            for entry in path.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == " " }) {
                guard !entry.isEmpty else { break }
                let file = expand(String(entry))
                if file != systemConfiguration && !files.contains(file) { files.append(file) }
            }
        }
        return files
    }

    /// The names of the PCMs the user files define (the keys of their `pcm` compounds, without
    /// arguments), found by libasound's own parser: each file is loaded into a fresh tree
    /// (`snd_config_top`, `snd_input_stdio_open`, `snd_config_load`), its hooks not run. A file
    /// that does not parse adds what it defined before the error; libasound's complaint goes to
    /// the library log.
    static func pcmNames() -> Set<String> {
        let environment = ProcessInfo.processInfo.environment
        let top = (ALSAText.string(snd_config_topdir()) ?? "/usr/share/alsa") + "/alsa.conf"
        var names = Set<String>()
        for file in files(environment: environment, home: home(environment), systemConfiguration: top) {
            guard let tree = ALSAConfigTree() else { break }
            tree.load(path: file)
            names.formUnion(tree.keys(of: "pcm"))
        }
        return names
    }

    /// `$HOME`, else the password database's home folder of the user, as libasound finds it.
    private static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"] { return home }
        guard let entry = getpwuid(getuid()), let folder = entry.pointee.pw_dir else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: folder, count: strlen(folder)), as: UTF8.self)
    }
}

/// Where the programs look when a path is not given: the XDG base directories for syncd
/// and syncctl (a user's programs), the usual system-service places for sync-server
/// (with systemd's `ConfigurationDirectory=` / `StateDirectory=` taking precedence).
///
/// XDG variables count only when they hold an absolute path (the spec says to ignore
/// relative ones); otherwise their documented fallbacks under `~` apply.
public enum StandardPaths {
    /// `$XDG_CONFIG_HOME/syncd/syncd.toml`, else `~/.config/syncd/syncd.toml`.
    public static func daemonConfig(environment: [String: String]) -> String {
        base("XDG_CONFIG_HOME", fallback: ".config", environment) + "/syncd/syncd.toml"
    }

    /// `$XDG_STATE_HOME/syncd`, else `~/.local/state/syncd` (unexpanded `~` when HOME is
    /// not known here: the config parser expands it, or says why it cannot).
    public static func daemonStateDir(environment: [String: String]) -> String {
        base("XDG_STATE_HOME", fallback: ".local/state", environment) + "/syncd"
    }

    /// The control socket when no config names one: `<daemonStateDir>/syncd.sock`.
    public static func daemonSocket(environment: [String: String]) -> String {
        daemonStateDir(environment: environment) + "/" + DaemonConfig.controlSocketName
    }

    /// `$CONFIGURATION_DIRECTORY/sync-server.toml` under systemd, else
    /// `/etc/sync-server/sync-server.toml`.
    public static func serverConfig(environment: [String: String]) -> String {
        if let dir = firstAbsolute(environment["CONFIGURATION_DIRECTORY"]) { return dir + "/sync-server.toml" }
        return "/etc/sync-server/sync-server.toml"
    }

    /// The data directory when the config names none: systemd's `$STATE_DIRECTORY`; else
    /// `/var/lib/sync-server` for a system service (run by root, or reading its config
    /// from `/etc`: so `sudo -u sync-server sync-server device add …` finds the service's
    /// data); else `~/.local/share/sync-server` (a user trying it out).
    public static func serverDataDir(environment: [String: String], systemService: Bool) -> String {
        if let dir = firstAbsolute(environment["STATE_DIRECTORY"]) { return dir }
        return systemService ? "/var/lib/sync-server" : ServerConfig.defaultDataDir
    }

    /// Whether a server started with config `file` by user `uid` is the system service.
    public static func isSystemService(configFile file: String, uid: UInt32) -> Bool {
        uid == 0 || file.hasPrefix("/etc/")
    }

    private static func base(_ variable: String, fallback: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return trimmed(value) }
        if let home = environment["HOME"], home.hasPrefix("/") { return trimmed(home) + "/" + fallback }
        return "~/" + fallback
    }

    /// systemd passes several directories separated by `:`; the first is ours.
    private static func firstAbsolute(_ value: String?) -> String? {
        guard let first = value?.split(separator: ":").first, first.hasPrefix("/") else { return nil }
        return trimmed(String(first))
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}

/// The version of the three programs (they are built and released together);
/// `--version` prints it and `syncctl status --json` reports the daemon's.
public enum ProductVersion {
    public static let current = "0.1.0"
}

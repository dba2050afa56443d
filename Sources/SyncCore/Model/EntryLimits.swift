/// The bounds every entry stays within, checked by the server on commit and
/// applied by clients to what they receive (docs/protocol.md, "Limits").
public enum EntryLimits {
    /// Longest path, in UTF-8 bytes (Linux's PATH_MAX).
    public static let maxPathBytes = 4096
    /// Longest path segment (one file name), in UTF-8 bytes (Linux's NAME_MAX).
    public static let maxNameBytes = 255
    /// Longest symlink target, in UTF-8 bytes.
    public static let maxSymlinkTargetBytes = 4095
    /// Permission bits an entry may carry: rwx for user, group, other and the
    /// sticky bit. Never setuid or setgid: clients strip them before sending.
    public static let modeMask: UInt32 = 0o1777
    /// Modification times from 1900-01-01 to 2255-03-14 (UTC), in nanoseconds.
    public static let mtimeNs: ClosedRange<Int64> = -2_208_988_800_000_000_000...9_000_000_000_000_000_000
    /// Largest file: 1 TiB.
    public static let maxFileSize: Int64 = 1 << 40
}

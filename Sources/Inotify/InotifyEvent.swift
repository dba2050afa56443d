/// What the kernel told us about one path, already joined to an absolute path.
public struct InotifyEvent: Sendable, Equatable {
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let created = Flags(rawValue: 1 << 0)
        public static let modified = Flags(rawValue: 1 << 1)
        /// The writer closed the file: act at once, no settle wait.
        public static let closedWrite = Flags(rawValue: 1 << 2)
        public static let attributes = Flags(rawValue: 1 << 3)
        public static let movedFrom = Flags(rawValue: 1 << 4)
        public static let movedTo = Flags(rawValue: 1 << 5)
        public static let deleted = Flags(rawValue: 1 << 6)
        /// A watched directory itself went away (or was moved away).
        public static let selfGone = Flags(rawValue: 1 << 7)
    }

    public var path: String
    public var isDirectory: Bool
    public var flags: Flags
    /// For a paired move (`movedTo`), where it came from.
    public var movedFrom: String?

    public init(path: String, isDirectory: Bool, flags: Flags, movedFrom: String? = nil) {
        self.path = path
        self.isDirectory = isDirectory
        self.flags = flags
        self.movedFrom = movedFrom
    }
}

/// What the watcher thread delivers.
public enum WatchMessage: Sendable, Equatable {
    case event(InotifyEvent)
    /// The kernel queue or our stream buffer overflowed: events were lost,
    /// everything below these roots must be rescanned.
    case rescanNeeded
    /// A new directory could not be watched (e.g. ENOSPC: out of watches).
    case watchFailed(path: String, error: WatchError)
    /// Every event the kernel had queued when `InotifyWatcher.barrier` was asked came
    /// before this (see `syncctl wait`).
    case barrier(UInt64)
}

public struct WatchError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    /// How many watches the kernel allows this user.
    public var maxUserWatches: Int

    public var isOutOfWatches: Bool { errno == 28 /* ENOSPC */ }

    public var description: String {
        if isOutOfWatches {
            return "cannot watch \(path): inotify watch limit reached (fs.inotify.max_user_watches = \(maxUserWatches)); "
                + "raise it with `sysctl fs.inotify.max_user_watches=<more>`; falling back to periodic scans"
        }
        return "cannot watch \(path): errno \(errno)"
    }
}

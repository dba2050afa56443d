import Glibc
import Logging

extension Daemon {
    /// Raises the soft limit on open files to the hard one: each folder keeps the directories
    /// of up to four download batches open (one staged, one recorded or renamed, and the two
    /// before it until their renames are durable and recorded: up to 4 × 256),
    /// besides its database, watches and connections, and the usual soft default (1024) is
    /// low for several folders at once. (Past the limit a file goes the one-by-one way.)
    static func raiseOpenFileLimit(logger: Logger) {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        let before = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        if setrlimit(resource, &limit) != 0 {
            logger.warning("cannot raise the open file limit", metadata: ["soft": "\(before)", "errno": "\(errno)"])
        }
    }
}

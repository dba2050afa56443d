import CLinux
import Foundation

/// A shell script run in a session of its own, detached from the test process's terminal and
/// output: the watchdogs that stop a test server when the test process ends, however it ends.
///
/// Spawned with posix_spawn and nothing inherited but /dev/null, not with Foundation's
/// `Process`: a watchdog lives as long as the test process, and a descriptor another test
/// opened at the same moment (a pipe it reads to its end, the socket Foundation watches for a
/// child's exit) would otherwise stay open in it, and that test would wait for ever.
enum DetachedShell {
    static func start(_ script: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        guard clinux_spawn_closefrom(&actions, 3) == 0 else { throw TestFailure("cannot keep descriptors from a watchdog shell") }
        let arguments = ["/usr/bin/setsid", "/bin/sh", "-c", script]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot start a watchdog shell: errno \(spawned)") }
    }
}

import Foundation

/// A shell script run in a session of its own, detached from the test process's terminal and
/// output: the watchdogs that stop a test server when the test process ends, however it ends.
/// A `Child` (nothing of this process inherited): a watchdog lives as long as the test
/// process, and a descriptor it held by accident would keep a test waiting for ever. Its own
/// session also keeps it out of reach of `scripts/run-bounded.sh`'s final kill, so it still
/// tidies up after a test process that crashed.
enum DetachedShell {
    static func start(_ script: String) throws {
        // setsid forks (the child leads its own process group) and its first process ends
        // at once: reaped here, so no zombie is left.
        let setsid = try Child.spawn("/usr/bin/setsid", ["/bin/sh", "-c", script])
        _ = setsid.waitForExit(within: .seconds(10))
    }
}

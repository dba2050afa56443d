import Foundation

/// One child started at a time in a test process, its pipes made under the same lock.
///
/// Foundation's `Process.run` closes, in the child, the descriptors it found open a moment
/// before, and its pipes and sockets are not close-on-exec. A pipe another test made in
/// between would stay open in the child: the test reading it to its end, or waiting for the
/// child Foundation watches through such a socket, would wait as long as this child lives.
/// Making pipes and starting children under one lock closes that window.
public enum Spawning {
    private static let lock = NSLock()

    /// Runs `start` (make the pipes, `run()` the process) while no other child is started.
    public static func exclusively<T>(_ start: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try start()
    }
}

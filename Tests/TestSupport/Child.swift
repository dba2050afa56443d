import CLinux
import Foundation
import Synchronization

/// A program a test runs: started with posix_spawn, holding stdin, stdout and stderr as given
/// and no other descriptor of the test process, reaped by polling `waitpid` with deadlines.
///
/// Not Foundation's `Process` (docs/decisions/0030). In Swift 6.3.1 its `run()` closes, in the
/// child, only the descriptors it saw open a moment before, so about 3 % of children started
/// while another test made a pipe inherited it (a test reading that pipe to its end then
/// waited as long as the child lived: a CI run hung for 80 minutes). Its `run()` also crashes
/// now and then (it copies 256 bytes of each `/proc/self/fd` entry and can read past the end
/// of a page; fixed upstream after 6.3.1). It seemed to hang in `waitUntilExit` as well.
public final class Child: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        case null
        /// A file, created if need be, appended to.
        case file(String)
        /// A descriptor of this process (a pipe's end), given as is.
        case descriptor(Int32)
    }

    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    public let processIdentifier: pid_t
    /// The program's file name, for messages.
    public let programName: String
    private let waitStatus = Mutex<Int32?>(nil)

    private init(pid: pid_t, program: String) {
        processIdentifier = pid
        programName = (program as NSString).lastPathComponent
    }

    /// Starts `program` (a path) with `arguments`, in a process group of its own. `environment`:
    /// all of it (this process's by default).
    public static func spawn(
        _ program: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            let result: Int32
            switch stream {
            case .null: result = posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path): result = posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .descriptor(let given): result = posix_spawn_file_actions_adddup2(&actions, given, fd)
            }
            guard result == 0 else { throw TestFailure("cannot set up descriptor \(fd) of \(program): errno \(result)") }
        }
        guard clinux_spawn_closefrom(&actions, 3) == 0 else { throw TestFailure("cannot keep descriptors from \(program)") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group, as Foundation did (a Ctrl-C in the terminal reaches the test runner
        // only), and no signal blocked whatever the spawning thread blocks.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw TestFailure("cannot run \(program): \(String(cString: strerror(spawned)))") }
        return Child(pid: pid, program: program)
    }

    /// A pipe whose ends are close-on-exec (a child gets one by `.descriptor`, which dup2s it;
    /// children started here inherit nothing else whatever the flag).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw TestFailure("pipe: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// True until the child has ended (and been reaped, here).
    public var isRunning: Bool {
        waitStatus.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let reaped = waitpid(processIdentifier, &raw, WNOHANG)
            if reaped == processIdentifier {
                status = raw
                return false
            }
            return true
        }
    }

    /// Its exit status, or the signal that ended it (see `terminationReason`); -1 while it runs.
    public var terminationStatus: Int32 {
        guard !isRunning, let raw = waitStatus.withLock({ $0 }) else { return -1 }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    public var terminationReason: TerminationReason {
        guard !isRunning, let raw = waitStatus.withLock({ $0 }) else { return .exit }
        return raw & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    public func signal(_ number: Int32) {
        guard isRunning else { return }
        kill(processIdentifier, number)
    }

    public func terminate() { signal(SIGTERM) }

    /// Waits until the child has ended, at most `timeout`; false if it still ran then. It
    /// holds the calling thread: from async code use the async overload, which does not.
    public func waitForExit(within timeout: Duration) -> Bool {
        pollHoldingThread(until: ContinuousClock.now + timeout, every: .milliseconds(5)) { !isRunning }
    }

    /// Waits until the child has ended, at most `timeout`, sleeping between looks instead of
    /// holding one of the test process's cooperative threads (there are as many as cores: an
    /// end-to-end pass whose tests each held one while a child ran starved every other test,
    /// whose in-process daemons then took over a minute to send a few bytes). False if it
    /// still ran then.
    public func waitForExit(within timeout: Duration) async -> Bool {
        await poll(until: ContinuousClock.now + timeout, every: .milliseconds(5)) { !isRunning }
    }
}

/// A pipe's read end drained by a thread of its own as output comes, so that a child never
/// blocks on a full pipe and a reader never blocks a test past its deadline. It closes the
/// descriptor at its end.
public final class OutputReader: Sendable {
    private let data = Mutex(Data())
    private let done = Mutex(false)

    public init(_ fd: Int32) {
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                data.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            close(fd)
            done.withLock { $0 = true }
        }.start()
    }

    /// What was read so far.
    public var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }

    /// Everything, once the pipe's writers are gone (the child ended); what was read within
    /// 5 s when a process it started still holds the pipe open.
    public func finished() -> String {
        _ = pollHoldingThread(until: ContinuousClock.now + .seconds(5), every: .milliseconds(1)) { done.withLock { $0 } }
        return text
    }

    /// `finished()`, sleeping between looks rather than holding the calling thread.
    public func finished() async -> String {
        _ = await poll(until: ContinuousClock.now + .seconds(5), every: .milliseconds(1)) { done.withLock { $0 } }
        return text
    }
}

/// Looks at `done` every `interval` until it holds or `deadline` passes (whether it held),
/// holding the calling thread: for code that cannot await (`defer`, a proxy's own thread).
func pollHoldingThread(until deadline: ContinuousClock.Instant, every interval: Duration, _ done: () -> Bool) -> Bool {
    while !done() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(useconds_t(interval / .microseconds(1)))
    }
    return true
}

/// `pollHoldingThread`, sleeping between looks. A cancelled task (a test past its time
/// limit) holds its thread for the rest instead: giving up at once would report a child
/// that did not end in time when it had no time at all.
func poll(until deadline: ContinuousClock.Instant, every interval: Duration, _ done: () -> Bool) async -> Bool {
    while !done() {
        guard ContinuousClock.now < deadline else { return false }
        do {
            try await Task.sleep(for: interval)
        } catch {
            return pollHoldingThread(until: deadline, every: interval, done)
        }
    }
    return true
}

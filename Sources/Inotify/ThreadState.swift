import CInotify
import Foundation
import Glibc

/// Everything the watcher thread owns: subscribers, pending move halves and
/// the overflow flag. Only ever touched on the watcher thread.
struct Subscriber {
    var continuation: AsyncStream<WatchMessage>.Continuation
    var filter: WatchFilter
}

struct ThreadState {
    var subscribers: [String: Subscriber] = [:]
    var overflowPending = false
    var initError: Int32 = 0
    var watched = WatchedDirectories()
    /// MOVED_FROM halves waiting for their MOVED_TO, by cookie.
    private var pendingMoves: [UInt32: (path: String, isDirectory: Bool)] = [:]
    private var pendingOrder: [UInt32] = []

    mutating func process(_ raw: UnsafeMutablePointer<inotify_event>) {
        let mask = raw.pointee.mask
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            overflowPending = true
            deliverOverflow()
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            // The kernel dropped this watch (its directory is gone): forget its path.
            watched.forget(wd: raw.pointee.wd)
            return
        }
        let isDirectory = mask & UInt32(IN_ISDIR) != 0
        if !isDirectory && raw.pointee.len > 0 && isSkippedFile(raw) { return }
        guard let path = path(of: raw) else { return }
        // A MOVED_FROM still waiting for its MOVED_TO, at this path or above or below it, is
        // delivered first: what happens at a path after it left comes after its leaving (a
        // directory made again where one left keeps the watch it gets now).
        if !pendingMoves.isEmpty { flushUnpairedMoves(touching: path, except: raw.pointee.cookie) }

        if mask & UInt32(IN_MOVED_FROM) != 0 {
            pendingMoves[raw.pointee.cookie] = (path, isDirectory)
            pendingOrder.append(raw.pointee.cookie)
            return
        }
        var flags = InotifyEvent.Flags()
        var from: String?
        if mask & UInt32(IN_MOVED_TO) != 0 {
            flags.insert(.movedTo)
            if let half = pendingMoves.removeValue(forKey: raw.pointee.cookie) {
                if pendingMoves.isEmpty { pendingOrder.removeAll(keepingCapacity: true) }
                from = half.path
                if isDirectory {
                    watched.rename(half.path, to: path)
                    // Moved before its own watch could be added (`mkdir d/x && mv d/x y`):
                    // nothing was watched under the old name, so watch it now.
                    if !watched.contains(path) { watchNew(path) }
                }
            } else if isDirectory {
                watchNew(path)
            }
        }
        if mask & UInt32(IN_CREATE) != 0 {
            flags.insert(.created)
            if isDirectory { watchNew(path) }
        }
        if mask & UInt32(IN_MODIFY) != 0 { flags.insert(.modified) }
        if mask & UInt32(IN_CLOSE_WRITE) != 0 { flags.insert(.closedWrite) }
        if mask & UInt32(IN_ATTRIB) != 0 { flags.insert(.attributes) }
        if mask & UInt32(IN_DELETE) != 0 { flags.insert(.deleted) }
        if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 { flags.insert(.selfGone) }
        if flags.isEmpty { return }
        deliver(.event(InotifyEvent(path: path, isDirectory: isDirectory, flags: flags, movedFrom: from)), for: path)
    }

    /// Whether a MOVED_FROM waits for its MOVED_TO.
    var hasUnpairedMoves: Bool { !pendingMoves.isEmpty }

    /// The cookies of the MOVED_FROMs waiting for their MOVED_TO.
    var unpairedMoves: Set<UInt32> { Set(pendingMoves.keys) }

    /// A MOVED_FROM whose MOVED_TO did not arrive by the read after the one that found it
    /// left the watched tree: it is a delete (in the order they were read). `only`: just
    /// those (nil: all).
    mutating func flushUnpairedMoves(only: Set<UInt32>? = nil) {
        flush { cookie, _ in only?.contains(cookie) ?? true }
    }

    /// `flushUnpairedMoves` of the MOVED_FROMs at `path`, above it or below it, but the half
    /// of the rename `except` names (a MOVED_TO pairs with its own cookie).
    private mutating func flushUnpairedMoves(touching path: String, except cookie: UInt32) {
        flush { pending, left in
            pending != cookie && (left == path || path.hasPrefix(left + "/") || left.hasPrefix(path + "/"))
        }
    }

    private mutating func flush(where chosen: (UInt32, String) -> Bool) {
        for cookie in pendingOrder where pendingMoves[cookie].map({ chosen(cookie, $0.path) }) ?? false {
            guard let half = pendingMoves.removeValue(forKey: cookie) else { continue }
            if half.isDirectory { watched.remove(subtree: half.path) }
            deliver(.event(InotifyEvent(path: half.path, isDirectory: half.isDirectory, flags: .movedFrom)), for: half.path)
        }
        pendingOrder.removeAll { pendingMoves[$0] == nil }
    }

    /// A directory appeared: watch it (and what is already inside) unless ignored.
    private mutating func watchNew(_ path: String) {
        guard let filter = filter(for: path), filter.shouldWatch(path) else { return }
        if case .failure(let error) = TreeWatch.add(path, filter: filter, into: &watched) {
            deliver(.watchFailed(path: path, error: error), for: path)
        }
    }

    func filter(for path: String) -> WatchFilter? {
        subscribers.first { path == $0.key || path.hasPrefix($0.key + "/") }?.value.filter
    }

    private mutating func deliver(_ message: WatchMessage, for path: String) {
        for (root, subscriber) in subscribers where path == root || path.hasPrefix(root + "/") {
            if case .dropped = subscriber.continuation.yield(message) { overflowPending = true }
        }
    }

    /// True when the subscriber at `root` took the barrier into its stream.
    func deliverBarrier(_ token: UInt64, to root: String) -> Bool {
        guard let subscriber = subscribers[root] else { return false }
        if case .enqueued = subscriber.continuation.yield(.barrier(token)) { return true }
        return false
    }

    /// Tells every subscriber to rescan; stays pending until each accepted it.
    mutating func deliverOverflow() {
        var allDelivered = true
        for subscriber in subscribers.values {
            if case .dropped = subscriber.continuation.yield(.rescanNeeded) { allDelivered = false }
        }
        overflowPending = !allDelivered
    }

    /// A file event its subscriber's filter drops (`WatchFilter.skippedFilePrefix`), judged
    /// by the name's bytes before any path is made.
    func isSkippedFile(_ raw: UnsafeMutablePointer<inotify_event>) -> Bool {
        guard let dir = watched.path(of: raw.pointee.wd), let filter = filter(for: dir) else { return false }
        return filter.skipsFile(named: name(of: raw))
    }

    private func name(of raw: UnsafeMutablePointer<inotify_event>) -> UnsafePointer<CChar> {
        UnsafeRawPointer(raw).advanced(by: MemoryLayout<inotify_event>.size).assumingMemoryBound(to: CChar.self)
    }

    func path(of raw: UnsafeMutablePointer<inotify_event>) -> String? {
        guard let dir = watched.path(of: raw.pointee.wd) else { return nil }
        if raw.pointee.len == 0 { return dir }
        return "\(dir)/\(String(cString: name(of: raw)))"
    }
}

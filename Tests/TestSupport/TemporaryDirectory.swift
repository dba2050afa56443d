import Foundation

/// A fresh directory under the system temp dir (`syncd-test-<label>-<8 hex>`),
/// removed on `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String) throws {
        try self.init(under: NSTemporaryDirectory(), label)
    }

    /// The same under `parent` (another file system than the temp dir's, say).
    public init(under parent: String, _ label: String) throws {
        let parent = parent.hasSuffix("/") ? parent : parent + "/"
        path = parent + "syncd-test-\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path/name`, made if missing.
    public func sub(_ name: String) throws -> String {
        let p = path + "/" + name
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    /// Marks the directory to be kept by `remove()`: a failed wait leaves the state and
    /// logs of every process for a post-mortem (a flaky failure cannot be run again at will).
    public func keepForPostMortem() {
        _ = FileManager.default.createFile(atPath: path + "/.keep", contents: nil)
    }

    /// Removes the directory, unless `SYNCD_TEST_KEEP=1` or `keepForPostMortem()` keeps it
    /// (state, logs) for a post-mortem. A removal that fails is noted on stderr and returned.
    @discardableResult
    public func remove() -> (any Error)? {
        if ProcessInfo.processInfo.environment["SYNCD_TEST_KEEP"] == "1" || FileManager.default.fileExists(atPath: path + "/.keep") {
            FileHandle.standardError.write(Data("note: kept \(path)\n".utf8))
            return nil
        }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            // Leftovers in /tmp are harmless; say so rather than hide it.
            FileHandle.standardError.write(Data("note: could not remove \(path): \(error)\n".utf8))
            return error
        }
        return nil
    }
}

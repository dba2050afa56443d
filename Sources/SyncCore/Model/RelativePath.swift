import Foundation

/// A path inside a synced folder: UTF-8, `/`-separated, NFC, never absolute,
/// no empty, `.` or `..` segments, no NUL. The one gate every path from the
/// network or the disk goes through before it touches a file system.
public struct RelativePath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let string: String

    public init(validating raw: String) throws(PathError) {
        guard !raw.isEmpty else { throw PathError(path: raw, reason: "empty path") }
        guard !raw.utf8.contains(0) else { throw PathError(path: raw, reason: "contains NUL") }
        guard !raw.hasPrefix("/") else { throw PathError(path: raw, reason: "absolute path") }
        guard raw.utf8.count <= EntryLimits.maxPathBytes * 4 else {
            throw PathError(path: String(raw.prefix(64)) + "…", reason: "longer than \(EntryLimits.maxPathBytes) bytes")
        }
        let normalized = raw.precomposedStringWithCanonicalMapping
        guard normalized.utf8.count <= EntryLimits.maxPathBytes else {
            throw PathError(path: String(raw.prefix(64)) + "…", reason: "longer than \(EntryLimits.maxPathBytes) bytes")
        }
        for segment in normalized.split(separator: "/", omittingEmptySubsequences: false) {
            switch segment {
            case "": throw PathError(path: raw, reason: "empty path segment")
            case ".", "..": throw PathError(path: raw, reason: "'\(segment)' segment")
            default:
                guard segment.utf8.count <= EntryLimits.maxNameBytes else {
                    throw PathError(path: raw, reason: "a name longer than \(EntryLimits.maxNameBytes) bytes")
                }
            }
        }
        self.string = normalized
    }

    /// For paths built from components already known to be valid (e.g. joined
    /// from a validated parent and a directory entry name without `/`).
    public init(trusted: String) { self.string = trusted }

    public var description: String { string }

    public var name: Substring {
        guard let slash = string.lastIndex(of: "/") else { return Substring(string) }
        return string[string.index(after: slash)...]
    }

    public var parent: RelativePath? {
        guard let slash = string.lastIndex(of: "/") else { return nil }
        return RelativePath(trusted: String(string[..<slash]))
    }

    public func appending(_ name: String) -> RelativePath {
        RelativePath(trusted: string + "/" + name)
    }

    /// True when `self` is `other` or lies below it.
    public func isWithin(_ other: RelativePath) -> Bool {
        string == other.string || string.hasPrefix(other.string + "/")
    }

    public static func < (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.string < rhs.string }
}

public struct PathError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "invalid path \(path.debugDescription): \(reason)" }
}

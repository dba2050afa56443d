import Foundation
import Glibc
import SyncCore

public struct MaterializeError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable { case io, hashMismatch, changedMeanwhile, notEmpty, refused }
    public var code: Code
    public var path: String
    public var message: String
    /// The system error underneath, when there is one.
    public var errnoValue: Int32?
    public var description: String { "\(path): \(message)" }
    /// The disk (or the user's quota) is full: worth retrying once space is freed.
    public var isDiskFull: Bool { errnoValue == ENOSPC || errnoValue == EDQUOT }

    static func io(_ op: String, _ path: String, _ err: Int32 = errno) -> MaterializeError {
        var error = MaterializeError(code: .io, path: path, message: "\(op): \(String(cString: strerror(err)))")
        error.errnoValue = err
        return error
    }

    /// A path that cannot be resolved beneath the folder: a symlink in a parent
    /// is a refusal (permanent, reported), anything else an I/O error.
    init(_ error: ContainmentError) {
        self.init(code: error.isRefusal ? .refused : .io, path: error.path, message: error.reason)
        errnoValue = error.errnoValue
    }

    init(code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }
}

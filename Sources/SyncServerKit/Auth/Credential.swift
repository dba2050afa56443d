import Foundation
import SyncCore

/// A device credential: `<device_id>.<secret>`, the device id 16 lowercase
/// hex characters, the secret 64. The server keeps only SHA-256(secret).
struct Credential: Sendable, Equatable {
    var deviceID: String
    var secret: String

    static let deviceIDLength = 16
    static let secretLength = 64

    /// Parses the one-line form; surrounding whitespace (a trailing newline) is ignored.
    init?(parsing raw: String) {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2,
            Self.isLowerHex(parts[0], length: Self.deviceIDLength),
            Self.isLowerHex(parts[1], length: Self.secretLength)
        else { return nil }
        self.deviceID = String(parts[0])
        self.secret = String(parts[1])
    }

    init(deviceID: String, secret: String) {
        self.deviceID = deviceID
        self.secret = secret
    }

    /// A fresh credential from the system's CSPRNG.
    static func generate() -> Credential {
        Credential(deviceID: RandomHex.make(bytes: 8), secret: RandomHex.make(bytes: 32))
    }

    var string: String { deviceID + "." + secret }
    var secretHash: String { Self.hash(secret: secret) }

    static func hash(secret: String) -> String { Hashing.sha256Hex(Array(secret.utf8)) }

    static func isLowerHex(_ s: Substring, length: Int) -> Bool {
        s.utf8.count == length && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

enum RandomHex {
    static func make(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hashing.hex((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

enum ConstantTime {
    /// Compares two strings without an early exit on the first difference.
    static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

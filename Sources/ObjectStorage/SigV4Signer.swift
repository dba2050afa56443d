import Crypto
import Foundation

/// AWS Signature Version 4 for one request, with the signature in the `Authorization`
/// header (docs.aws.amazon.com, "Signature Version 4 signing process" and the S3 API's
/// "Signature Calculations for the Authorization Header"). Pure: the time is passed in.
public struct SigV4Signer: Sendable {
    public var credentials: S3Credentials
    public var region: String
    public var service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The SHA-256 of an empty payload, hex.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// `headers` (names in any case) with `x-amz-date`, `x-amz-security-token` when the
    /// credentials have a session token, and `authorization` added. Every header given is
    /// signed, so give the ones the server will see (`host` among them). `path` is the
    /// request's path before percent-encoding; `query` its parameters, not encoded.
    public func sign(
        method: String, path: String, query: [(name: String, value: String)], headers: [(name: String, value: String)],
        payloadHash: String, date: Date
    ) -> [(name: String, value: String)] {
        let stamp = Self.timestamps(date)
        var all = headers
        all.append(("x-amz-date", stamp.dateTime))
        if let token = credentials.sessionToken { all.append(("x-amz-security-token", token)) }
        let canonical = Self.canonicalHeaders(all)
        let request = [
            method.uppercased(),
            Self.canonicalURI(path),
            Self.canonicalQuery(query),
            canonical.text,
            canonical.signedNames,
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(stamp.day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", stamp.dateTime, scope, Self.hex(SHA256.hash(data: Data(request.utf8)))]
            .joined(separator: "\n")
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: stamp.day)))
        all.append((
            "authorization",
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope),SignedHeaders=\(canonical.signedNames),Signature=\(signature)"
        ))
        return all
    }

    func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// `20130524T000000Z` and `20130524`, in UTC.
    static func timestamps(_ date: Date) -> (dateTime: String, day: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = String(format: "%04d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
        return (day + String(format: "T%02d%02d%02dZ", c.hour ?? 0, c.minute ?? 0, c.second ?? 0), day)
    }

    /// Each path segment percent-encoded (S3 style: once, `/` kept).
    static func canonicalURI(_ path: String) -> String {
        let encoded = path.split(separator: "/", omittingEmptySubsequences: false).map { percentEncode(String($0)) }
            .joined(separator: "/")
        return encoded.isEmpty ? "/" : encoded
    }

    /// Parameters encoded, sorted by name then value, `name=value` joined by `&`.
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (percentEncode($0.name), percentEncode($0.value)) }
        let sorted = encoded.sorted { (a: (name: String, value: String), b: (name: String, value: String)) -> Bool in
            a.name == b.name ? a.value < b.value : a.name < b.name
        }
        return sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// Lower-case names, values trimmed with inner runs of spaces collapsed, sorted by name
    /// (values of a repeated name joined by commas in the order given).
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (text: String, signedNames: String) {
        var values: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[header.name.lowercased(), default: []].append(value)
        }
        let names = values.keys.sorted()
        let text = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (text, names.joined(separator: ";"))
    }

    /// RFC 3986 encoding: everything but `A-Z a-z 0-9 - . _ ~` as `%XX` (upper-case hex).
    public static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// `A-Z a-z 0-9 - . _ ~`
    static let unreserved: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of `bytes`, hex (the `x-amz-content-sha256` of a signed payload).
    public static func payloadHash(_ bytes: some DataProtocol) -> String {
        hex(SHA256.hash(data: bytes))
    }
}

/// An access key, its secret, and a session token for temporary credentials. Printed, it
/// shows the access key only.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public var description: String { "access key \(accessKeyID) (secret not shown)" }

    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

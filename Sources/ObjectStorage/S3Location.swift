import Foundation

/// Where objects go: a bucket and a key prefix on an S3-compatible endpoint, and how to
/// address it (path style, `http://host:port/bucket/key`, for endpoints without
/// per-bucket host names; virtual-hosted style, `https://bucket.host/key`, for AWS).
public struct S3Location: Sendable, Equatable {
    public var bucket: String
    /// Prepended to every key: empty, or ending in `/`.
    public var prefix: String
    /// Scheme, host and port, no path: `http://127.0.0.1:9000`, `https://s3.eu-west-1.amazonaws.com`.
    public var endpoint: URL
    public var region: String
    public var pathStyle: Bool

    public init(bucket: String, prefix: String, endpoint: URL, region: String, pathStyle: Bool) {
        self.bucket = bucket
        self.prefix = Self.normalized(prefix: prefix)
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
    }

    /// `s3://bucket/some/prefix` → ("bucket", "some/prefix/"); nil with the reason if it is not one.
    public static func parse(url: String) -> Result<(bucket: String, prefix: String), S3LocationError> {
        guard url.hasPrefix("s3://") else { return .failure(.init("expected s3://BUCKET or s3://BUCKET/PREFIX, got \"\(url)\"")) }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard isValidBucket(bucket) else {
            return .failure(.init(
                "\"\(bucket)\" in \"\(url)\" is not a valid bucket name (3 to 63 characters: lower-case letters, digits, '.', '-')"))
        }
        let prefix = String(rest.dropFirst(bucket.count))
        guard !prefix.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            return .failure(.init("the prefix of \"\(url)\" may not contain '.' or '..' segments"))
        }
        return .success((bucket, normalized(prefix: prefix)))
    }

    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count)
            && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
            && name.first != "." && name.first != "-" && name.last != "." && name.last != "-"
    }

    static func normalized(prefix: String) -> String {
        let parts = prefix.split(separator: "/", omittingEmptySubsequences: true)
        return parts.isEmpty ? "" : parts.joined(separator: "/") + "/"
    }

    /// AWS's endpoint for `region`.
    public static func awsEndpoint(region: String) -> URL {
        URL(string: "https://s3.\(region).amazonaws.com")!
    }

    /// The host (with a port that is not the scheme's default) requests are sent to and signed with.
    var host: String {
        let name = endpoint.host ?? ""
        let base = pathStyle ? name : "\(bucket).\(name)"
        guard let port = endpoint.port else { return base }
        let isDefault = (endpoint.scheme == "https" && port == 443) || (endpoint.scheme == "http" && port == 80)
        return isDefault ? base : "\(base):\(port)"
    }

    /// The request path (not encoded) of `key`, or of the bucket itself when `key` is nil.
    func path(key: String?) -> String {
        let object = key.map { "/" + $0 } ?? "/"
        return pathStyle ? "/\(bucket)" + (key == nil ? "" : object) : object
    }

    /// The full URL of a request for `path` with `query` (encoded as they are signed).
    func url(path: String, query: [(name: String, value: String)]) -> String {
        let scheme = endpoint.scheme ?? "https"
        var url = "\(scheme)://\(host)\(SigV4Signer.canonicalURI(path))"
        if !query.isEmpty { url += "?" + SigV4Signer.canonicalQuery(query) }
        return url
    }

    /// `s3://bucket/prefix` as configured, for messages.
    public var description: String { "s3://\(bucket)/\(prefix)" }
}

public struct S3LocationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

import Foundation

extension ServerConfig {
    /// `[storage.s3]`: how to reach the bucket `blobs = "s3://bucket/prefix"` names. Keys
    /// left out come from the standard AWS environment variables.
    public struct S3: Sendable, Equatable {
        /// `endpoint`, else `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`; nil: AWS itself.
        public var endpoint: String?
        /// `region`, else `AWS_REGION` or `AWS_DEFAULT_REGION`, else "us-east-1".
        public var region: String
        public var accessKeyID: String
        public var secretAccessKey: String
        /// `AWS_SESSION_TOKEN`, for temporary credentials.
        public var sessionToken: String?
        /// `path_style`: address the bucket in the path (default when an endpoint is given).
        public var pathStyle: Bool

        public init(
            endpoint: String?, region: String, accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil,
            pathStyle: Bool
        ) {
            self.endpoint = endpoint
            self.region = region
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
            self.pathStyle = pathStyle
        }
    }

    static let s3Keys = ["endpoint", "region", "access_key_id", "secret_access_key", "secret_access_key_file", "path_style"]

    /// `[storage.s3]` and the environment, for `blobs = "s3://…"` (nil for other stores; a
    /// `[storage.s3]` table without an s3 store is an error, it would be silently unused).
    static func parseS3(
        blobs: String, storage: TOMLReader, environment: [String: String], base: String
    ) throws(ConfigError) -> S3? {
        let table = try storage.subtable("s3", known: s3Keys)
        guard blobs.hasPrefix("s3://") else {
            if table != nil { throw storage.error("s3", "is set but blobs is \"\(blobs)\"; set blobs = \"s3://BUCKET/PREFIX\" to use it") }
            return nil
        }
        func env(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        let endpoint = try table?.string("endpoint", expected: "a URL such as \"http://127.0.0.1:9000\"")
            ?? env("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
        if let endpoint {
            guard let url = URL(string: endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
                url.path.isEmpty || url.path == "/"
            else {
                throw (table ?? storage).error(
                    "endpoint", "invalid endpoint \"\(endpoint)\": expected http(s)://HOST[:PORT] with no path")
            }
        }
        let region = try table?.string("region") ?? env("AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1"
        let keyID = try table?.string("access_key_id") ?? env("AWS_ACCESS_KEY_ID")
        var secret = try table?.string("secret_access_key")
        if let file = try table?.string("secret_access_key_file", expected: "a path string"), let table {
            guard secret == nil else {
                throw table.error("secret_access_key_file", "give secret_access_key or secret_access_key_file, not both")
            }
            let path = try table.expandPath("secret_access_key_file", file, environment: environment, base: base)
            do {
                secret = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw table.error("secret_access_key_file", "cannot read \(path): \(error.localizedDescription)")
            }
        }
        secret = secret ?? env("AWS_SECRET_ACCESS_KEY")
        guard let keyID, let secret, !keyID.isEmpty, !secret.isEmpty else {
            throw storage.error(
                "s3",
                "no credentials for \(blobs): set access_key_id and secret_access_key (or secret_access_key_file) in [storage.s3], "
                    + "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment")
        }
        let pathStyle = try table?.bool("path_style") ?? (endpoint != nil)
        return S3(
            endpoint: endpoint, region: region, accessKeyID: keyID, secretAccessKey: secret,
            sessionToken: env("AWS_SESSION_TOKEN"), pathStyle: pathStyle)
    }
}

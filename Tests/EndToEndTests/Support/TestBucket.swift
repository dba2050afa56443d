import Foundation
import ObjectStorage
import TestSupport

/// A fresh bucket on a moto server, and the `[storage]` lines that point a server at it.
struct TestBucket {
    let moto: MotoServer
    let name: String
    /// A client of the bucket with no prefix: keys are full keys.
    let client: S3Client

    static func create(on moto: MotoServer, label: String) async throws -> TestBucket {
        let name = "\(label)-\(UInt32.random(in: 0...UInt32.max))"
        let client = S3Client(
            location: S3Location(bucket: name, prefix: "", endpoint: URL(string: moto.endpoint)!, region: "us-east-1", pathStyle: true),
            credentials: S3Credentials(accessKeyID: MotoServer.accessKeyID, secretAccessKey: MotoServer.secretAccessKey))
        try await client.createBucket()
        return TestBucket(moto: moto, name: name, client: client)
    }

    /// `blobs = "s3://NAME/PREFIX"` and its `[storage.s3]` table; the secret inline, or
    /// read from `secretFile` when given.
    func storageConfig(prefix: String, secretFile: String? = nil) -> String {
        let secret = secretFile.map { "secret_access_key_file = \"\($0)\"" } ?? "secret_access_key = \"\(MotoServer.secretAccessKey)\""
        return """
            blobs = "s3://\(name)/\(prefix)"
            [storage.s3]
            endpoint = "\(moto.endpoint)"
            access_key_id = "\(MotoServer.accessKeyID)"
            \(secret)
            """
    }

    /// The packs under `prefix`: how many, how many bytes.
    func packs(prefix: String) async throws -> (count: Int, bytes: Int64) {
        let objects = try await client.list(prefix: prefix + "/packs/")
        return (objects.count, objects.reduce(0) { $0 + $1.size })
    }
}

extension SharedMotoBucket {
    /// A client of the run's shared bucket with no prefix: keys are full keys.
    var client: S3Client {
        S3Client(
            location: S3Location(bucket: name, prefix: "", endpoint: URL(string: endpoint)!, region: "us-east-1", pathStyle: true),
            credentials: S3Credentials(accessKeyID: MotoServer.accessKeyID, secretAccessKey: MotoServer.secretAccessKey))
    }
}

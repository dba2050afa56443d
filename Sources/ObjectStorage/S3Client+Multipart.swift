/// Big objects in parts (CreateMultipartUpload, UploadPart, CompleteMultipartUpload; the
/// upload is aborted if a part fails, so no parts are left behind to pay for).
extension S3Client {
    /// Objects bigger than this go up in parts of `partSize` (S3's minimum part is 5 MiB).
    public static let multipartAbove = 16 << 20
    public static let partSize = 8 << 20

    /// Stores `bytes` as `key`, in parts when they are many.
    public func upload(key: String, bytes: [UInt8]) async throws {
        guard bytes.count > Self.multipartAbove else { return try await put(key: key, bytes: bytes) }
        let created = try await send(.POST, key: key, query: [("uploads", "")], expect: [200])
        guard let uploadID = S3XML.first("UploadId", in: created.body), !uploadID.isEmpty else {
            throw S3Error(kind: .rejected, operation: "POST (multipart)", target: target(key), message: "no UploadId in the answer")
        }
        do {
            var etags: [String] = []
            var start = 0
            while start < bytes.count {
                let end = min(start + Self.partSize, bytes.count)
                let part = etags.count + 1
                let answer = try await send(
                    .PUT, key: key, query: [("partNumber", String(part)), ("uploadId", uploadID)], body: Array(bytes[start..<end]),
                    expect: [200])
                guard let etag = answer.headers.first(name: "etag") else {
                    throw S3Error(kind: .rejected, operation: "PUT (part \(part))", target: target(key), message: "no ETag in the answer")
                }
                etags.append(etag)
                start = end
            }
            let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(S3XML.escape($0.element))</ETag></Part>" }
            let body = Array("<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>".utf8)
            let done = try await send(.POST, key: key, query: [("uploadId", uploadID)], body: body, expect: [200])
            // S3 can answer 200 and put the failure in the body.
            if let code = S3XML.first("Code", in: done.body) {
                throw S3Error(
                    kind: .transient, operation: "POST (complete multipart)", target: target(key), status: 200, code: code,
                    message: S3XML.first("Message", in: done.body) ?? "the upload was not completed")
            }
        } catch {
            do {
                _ = try await send(.DELETE, key: key, query: [("uploadId", uploadID)], expect: [200, 204, 404])
            } catch let abort {
                throw S3Error(
                    kind: .transient, operation: "PUT (multipart)", target: target(key),
                    message: "\(error); aborting the upload failed too (\(abort)): its parts stay until a lifecycle rule removes them",
                    underlying: error)
            }
            throw error
        }
    }
}

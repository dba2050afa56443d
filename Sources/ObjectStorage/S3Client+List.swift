import Foundation

/// Listing the objects under a prefix (ListObjectsV2, page after page).
extension S3Client {
    public struct Object: Sendable, Equatable {
        /// The full key.
        public var key: String
        public var size: Int64
        /// When it was written, as the store says (nil if the listing left it out or it
        /// could not be read).
        public var lastModified: Date? = nil

        public init(key: String, size: Int64, lastModified: Date? = nil) {
            self.key = key
            self.size = size
            self.lastModified = lastModified
        }
    }

    /// Every object whose key starts with `prefix` (the client's prefix prepended), asking
    /// for `pageSize` keys a page (nil: the store's default, 1,000 on S3).
    public func list(prefix name: String, pageSize: Int? = nil) async throws -> [Object] {
        var objects: [Object] = []
        var token: String?
        repeat {
            var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", key(name))]
            if let token { query.append(("continuation-token", token)) }
            if let pageSize { query.append(("max-keys", String(pageSize))) }
            let answer = try await send(.GET, key: nil, query: query, expect: [200])
            guard let elements = S3XML.elements(["Key", "LastModified", "Size", "IsTruncated", "NextContinuationToken"], in: answer.body) else {
                throw S3Error(kind: .rejected, operation: "GET (list)", target: target(key(name)), message: "the listing is not XML")
            }
            var pendingKey: String?
            var pendingDate: Date?
            var truncated = false
            token = nil
            for element in elements {
                switch element.name {
                case "Key":
                    pendingKey = element.text
                    pendingDate = nil
                case "LastModified": pendingDate = Self.timestamp(element.text)
                case "Size":
                    guard let objectKey = pendingKey, let size = Int64(element.text) else {
                        throw S3Error(kind: .rejected, operation: "GET (list)", target: target(key(name)), message: "a listed object has no key or size")
                    }
                    objects.append(Object(key: objectKey, size: size, lastModified: pendingDate))
                    pendingKey = nil
                case "IsTruncated": truncated = element.text == "true"
                case "NextContinuationToken": token = element.text
                default: break
                }
            }
            if truncated && token == nil {
                throw S3Error(kind: .rejected, operation: "GET (list)", target: target(key(name)), message: "a truncated listing without a continuation token")
            }
            if !truncated { token = nil }
        } while token != nil
        return objects
    }

    /// `2009-10-12T17:50:30.000Z` (ISO 8601, with or without fractional seconds); nil for
    /// text that is neither, which the object's `lastModified` says as nil (its readers treat
    /// an unknown time as recent).
    static func timestamp(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for format in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), .iso8601] {
            do { return try Date(trimmed, strategy: format) } catch { continue }
        }
        return nil
    }
}

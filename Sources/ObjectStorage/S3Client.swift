import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A small client of the S3 API for one bucket and prefix: put, ranged get, head, delete
/// and list objects, multipart uploads for big ones. Requests are signed with SigV4 over
/// a signed payload; transient failures (5xx, throttling, a dropped connection) are tried
/// again, up to `attempts` times with a growing pause.
public struct S3Client: Sendable {
    public let location: S3Location
    let signer: SigV4Signer
    let http: HTTPClient
    public var attempts = 4
    public var timeout: TimeAmount = .seconds(60)

    /// The process's client for object stores: connections are not retried by the pool
    /// (a refused connection would otherwise be tried again until the request's deadline);
    /// `send` tries again itself, a bounded number of times.
    public static let sharedHTTP: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public init(location: S3Location, credentials: S3Credentials, http: HTTPClient = S3Client.sharedHTTP) {
        self.location = location
        self.signer = SigV4Signer(credentials: credentials, region: location.region)
        self.http = http
    }

    /// The full key of `name` (the prefix prepended).
    public func key(_ name: String) -> String { location.prefix + name }

    public func target(_ key: String?) -> String { "s3://\(location.bucket)/\(key ?? "")" }

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    /// Sends one signed request (again while it fails transiently); an answer outside
    /// `expect` becomes an `S3Error` carrying the store's code and message.
    func send(
        _ method: HTTPMethod, key: String?, query: [(name: String, value: String)] = [], headers extra: [(name: String, value: String)] = [],
        body: [UInt8] = [], expect: Set<Int>, maxBody: Int = 256 << 20
    ) async throws -> Answer {
        let path = location.path(key: key)
        var failure: S3Error?
        for attempt in 0..<attempts {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(100 << min(attempt, 5))) }
            do {
                let answer = try await once(method, path: path, query: query, headers: extra, body: body, maxBody: maxBody)
                if expect.contains(answer.status) { return answer }
                let code = S3XML.first("Code", in: answer.body)
                let message = S3XML.first("Message", in: answer.body) ?? String(decoding: answer.body.prefix(300), as: UTF8.self)
                let error = S3Error(
                    kind: S3Error.kind(status: answer.status, code: code), operation: method.rawValue, target: target(key),
                    status: answer.status, code: code, message: message.isEmpty ? "no detail given" : message)
                guard error.kind == .transient else { throw error }
                failure = error
            } catch let error as S3Error {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failure = S3Error(
                    kind: .transient, operation: method.rawValue, target: target(key), message: "no answer from \(location.endpoint): \(error)",
                    underlying: error)
            }
        }
        throw failure ?? S3Error(kind: .transient, operation: method.rawValue, target: target(key), message: "not tried")
    }

    private func once(
        _ method: HTTPMethod, path: String, query: [(name: String, value: String)], headers extra: [(name: String, value: String)],
        body: [UInt8], maxBody: Int
    ) async throws -> Answer {
        var headers: [(name: String, value: String)] = [("host", location.host), ("x-amz-content-sha256", SigV4Signer.payloadHash(body))]
        headers += extra
        if !body.isEmpty || method == .PUT || method == .POST { headers.append(("content-length", String(body.count))) }
        let signed = signer.sign(
            method: method.rawValue, path: path, query: query, headers: headers, payloadHash: headers[1].value, date: Date())
        var request = HTTPClientRequest(url: location.url(path: path, query: query))
        request.method = method
        for header in signed where header.name != "content-length" { request.headers.add(name: header.name, value: header.value) }
        if !body.isEmpty || method == .PUT || method == .POST {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await http.execute(request, timeout: timeout)
        var buffer = try await response.body.collect(upTo: maxBody)
        return Answer(
            status: Int(response.status.code), headers: response.headers, body: buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    // MARK: Objects

    /// Stores `bytes` as the object `key` (replacing one of that name).
    public func put(key: String, bytes: [UInt8]) async throws {
        _ = try await send(.PUT, key: key, body: bytes, expect: [200])
    }

    /// The bytes of `key` in `range` (the whole object when nil); an object shorter than the
    /// range is an error.
    public func get(key: String, range: Range<Int64>? = nil) async throws -> [UInt8] {
        var headers: [(name: String, value: String)] = []
        if let range { headers.append(("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")) }
        let answer = try await send(.GET, key: key, headers: headers, expect: range == nil ? [200] : [200, 206])
        guard let range else { return answer.body }
        if answer.status == 200 {
            // A store that ignores Range sends everything: cut the range out.
            guard Int64(answer.body.count) >= range.upperBound else { throw short(key, range, got: answer.body.count) }
            return Array(answer.body[Int(range.lowerBound)..<Int(range.upperBound)])
        }
        guard Int64(answer.body.count) == range.count else { throw short(key, range, got: answer.body.count) }
        return answer.body
    }

    private func short(_ key: String, _ range: Range<Int64>, got: Int) -> S3Error {
        S3Error(
            kind: .rejected, operation: "GET", target: target(key),
            message: "asked for bytes \(range.lowerBound)..<\(range.upperBound), got \(got) bytes: the object is shorter")
    }

    /// The object's size, nil if there is none.
    public func size(key: String) async throws -> Int64? {
        do {
            let answer = try await send(.HEAD, key: key, expect: [200])
            guard let length = answer.headers.first(name: "content-length").flatMap(Int64.init) else {
                throw S3Error(kind: .rejected, operation: "HEAD", target: target(key), message: "the answer has no Content-Length")
            }
            return length
        } catch let error as S3Error where error.kind == .notFound {
            return nil
        }
    }

    /// Deletes `key`; one already gone is fine.
    public func delete(key: String) async throws {
        _ = try await send(.DELETE, key: key, expect: [200, 204, 404])
    }

    // MARK: The bucket

    /// Whether the bucket is there and these credentials may use it (for readiness).
    public func checkBucket() async throws {
        _ = try await send(.HEAD, key: nil, expect: [200])
    }

    /// Creates the bucket (tests and first-time set-up); one that exists and is ours is fine.
    public func createBucket() async throws {
        var body: [UInt8] = []
        if location.region != "us-east-1" {
            body = Array(
                "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(S3XML.escape(location.region))</LocationConstraint></CreateBucketConfiguration>"
                    .utf8)
        }
        do {
            _ = try await send(.PUT, key: nil, body: body, expect: [200])
        } catch let error as S3Error where error.code == "BucketAlreadyOwnedByYou" {
            return
        }
    }
}

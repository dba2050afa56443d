import Foundation
import SyncCore
import Testing
import TestSupport

@testable import SyncServerKit

/// Seeded fuzz of every /v1 endpoint over real sockets: mutated JSON, wrong
/// types, huge and negative numbers, `..`, absolute paths, NUL, bad escapes,
/// lying Content-Length, broken chunked framing, wrong chunk bytes, with and
/// without a token. Every request is answered below 500 or closed (30 s
/// bound: the suite shares this process with every other test), and the
/// server is alive at the end. Bounded: a few thousand
/// requests, a fixed seed set (`FUZZ_SEED` adds one, printed for replay).
@Suite("HTTP fuzz", .serialized)
struct HTTPFuzzTests {
    static var seeds: [UInt64] {
        var seeds: [UInt64] = [1, 2]
        if let extra = ProcessInfo.processInfo.environment["FUZZ_SEED"].flatMap(UInt64.init) { seeds.append(extra) }
        return seeds
    }

    @Test(arguments: seeds)
    func everyEndpointSurvivesMalformedRequests(seed: UInt64) async throws {
        let server = try await LiveServer.start(idleTimeout: .milliseconds(500))
        var generator = FuzzRequests(seed: seed, token: server.token)
        var tally: [Int: Int] = [:]
        var failures: [String] = []
        let count = 1500
        var sent = 0
        while sent < count {
            let batch = (0..<24).map { _ in generator.next() }
            sent += batch.count
            let answers = try await withThrowingTaskGroup(of: (String, RawConnection.Exchange).self) { group in
                for request in batch {
                    group.addTask {
                        let text = String(decoding: request.bytes.prefix(400), as: UTF8.self).debugDescription
                        return ("\(request.label) \(text)", try await RawConnection.exchange(port: server.port, request.bytes, readTimeout: .seconds(120)))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let completedQuickly = answers.filter { $0.1.elapsed < .seconds(1) }.count
            for (label, answer) in answers {
                let status = answer.status ?? 0
                tally[status, default: 0] += 1
                if status >= 500 { failures.append("\(label): \(answer.text.prefix(300))") }
                if status == 0 && !answer.closed {
                    failures.append("\(label): no answer and not closed after \(answer.elapsed) (\(completedQuickly) of the batch answered within 1 s)")
                }
            }
        }
        let health = try await RawConnection.exchange(port: server.port, RawConnection.request("GET", "/v1/health"), readTimeout: .seconds(120))
        print("fuzz seed \(seed): \(sent) requests, statuses \(tally.sorted { $0.key < $1.key }), \(failures.count) failures")
        #expect(health.status == 200, "server alive after the fuzz")
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        let planted = try FileManager.default.subpathsOfDirectory(atPath: server.dir).filter { $0.contains("pwned") }
        #expect(planted.isEmpty)
        await server.stop()
    }
}

/// Deterministic request generator (SplitMix64).
struct FuzzRequests {
    struct Request: Sendable {
        var label: String
        var bytes: [UInt8]
    }

    var rng: SplitMix64
    let token: String

    init(seed: UInt64, token: String) {
        self.rng = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15)
        self.token = token
    }

    mutating func random() -> UInt64 { rng.next() }

    mutating func pick<T>(_ options: [T]) -> T { rng.pick(options) }

    static let hash = Hashing.sha256Hex(Array("fuzz".utf8))
    static let paths = [
        "a.txt", "../pwned", "/etc/pwned", "a/../../pwned", "a\\u0000b", "", ".", "dir/./x", String(repeating: "x", count: 5000),
        "%2e%2e/pwned", "é/ok", "a//b",
    ]
    static let numbers = ["0", "-1", "1", "9223372036854775807", "-9223372036854775808", "1e400", "18446744073709551616",
        "\"7\"", "null", "[]", "{}", "true", "0.5"]

    mutating func jsonValue() -> String {
        switch random() % 4 {
        case 0: return pick(Self.numbers)
        case 1: return "\"" + pick(Self.paths) + "\""
        case 2: return pick(["\"file\"", "\"symlink\"", "\"directory\"", "\"fifo\""])
        default: return "\"" + Self.hash + "\""
        }
    }

    mutating func change() -> String {
        let fields = [
            "path": "\"" + pick(Self.paths) + "\"", "base_rev": pick(Self.numbers), "kind": pick(["\"file\"", "\"symlink\"", "\"directory\"", "\"x\""]),
            "size": pick(Self.numbers), "mtime_ns": pick(Self.numbers), "mode": pick(Self.numbers + ["2541", "4095"]),
            "chunks": pick(["[]", "[\"\(Self.hash)\"]", "[\"zz\"]", "\"x\""]), "content_hash": jsonValue(),
            "deleted": pick(["false", "true", "0"]), "symlink_target": jsonValue(), "move_from": jsonValue(),
        ]
        let kept = fields.filter { _ in random() % 8 != 0 }.sorted { $0.key < $1.key }
        return "{" + kept.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    mutating func body(for endpoint: String) -> String {
        switch endpoint {
        case "commit": return "{\"changes\":[" + (0..<Int(random() % 4)).map { _ in change() }.joined(separator: ",") + "]}"
        case "missing": return "{\"hashes\":[" + (0..<Int(random() % 3)).map { _ in jsonValue() }.joined(separator: ",") + "]}"
        case "token": return "{\"credential\":" + jsonValue() + "}"
        default: return String(decoding: (0..<Int(random() % 64)).map { _ in UInt8(truncatingIfNeeded: random()) }, as: UTF8.self)
        }
    }

    /// Flips, cuts or pads the body text.
    mutating func mutate(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        switch random() % 5 {
        case 0 where !bytes.isEmpty: bytes[Int(random() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random() | 1)
        case 1 where !bytes.isEmpty: bytes = Array(bytes.prefix(Int(random() % UInt64(bytes.count))))
        case 2: bytes += [0, 0xFF, 0x22, 0x5C]
        default: break
        }
        return bytes
    }

    mutating func next() -> Request {
        let endpoints: [(String, String, String)] = [
            ("POST", "/v1/auth/token", "token"), ("POST", "/v1/folders/docs/chunks/missing", "missing"),
            ("POST", "/v1/folders/docs/chunks/batch", "raw"), ("PUT", "/v1/folders/docs/chunks/\(Self.hash)", "raw"),
            ("GET", "/v1/folders/docs/chunks/\(Self.hash)", "none"), ("POST", "/v1/folders/docs/commit", "commit"),
            ("GET", "/v1/folders/docs/changes?since=\(pick(["0", "-1", "x", "99999999999999999999"]))&limit=\(pick(["1", "0", "100001"]))", "none"),
            ("GET", "/v1/folders/docs/history?path=\(pick(["a.txt", "%ZZ", "..%2Fx", "%00", "a%2"]))", "none"),
            ("GET", "/v1/folders/private/changes", "none"), ("GET", "/v1/folders/..%2F..%2Fetc/changes", "none"),
            ("DELETE", "/v1/folders/docs/commit", "none"), ("GET", "/v1/health", "none"),
        ]
        let (method, path, kind) = pick(endpoints)
        var headers = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        switch random() % 4 {
        case 0: break
        case 1: headers += "Authorization: Bearer \(String(repeating: "ab", count: 32))\r\n"
        default: headers += "Authorization: Bearer \(token)\r\n"
        }
        if let range = random() % 6 == 0 ? pick(["bytes=0-0", "bytes=5-1", "bytes=-9999999999999999999", "bytes=x"]) : nil {
            headers += "Range: \(range)\r\n"
        }
        let body = kind == "none" ? [] : mutate(body(for: kind))
        var label = "\(method) \(path.prefix(60))"
        let framing = random() % 6
        var bytes: [UInt8]
        switch framing {
        case 0 where !body.isEmpty:
            // Announced longer than sent: the idle timeout must close it.
            bytes = Array((headers + "Content-Length: \(body.count + 50)\r\n\r\n").utf8) + body
            label += " (short body)"
        case 1:
            bytes = Array((headers + "Transfer-Encoding: chunked\r\n\r\n").utf8) + Array(pick(["zz\r\n", "5\r\nab", "-1\r\n", "3\r\nabc\r\n0\r\n\r\n"]).utf8)
            label += " (chunked)"
        case 2:
            bytes = Array((headers + "Content-Length: \(pick(["-5", "abc", "99999999999999999999"]))\r\n\r\n").utf8) + body
            label += " (bad length)"
        default:
            bytes = Array((headers + "Content-Length: \(body.count)\r\n\r\n").utf8) + body
        }
        return Request(label: label, bytes: bytes)
    }
}

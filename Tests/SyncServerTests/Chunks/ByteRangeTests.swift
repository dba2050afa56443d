import Testing

@testable import SyncServerKit

@Suite("Range header parsing")
struct ByteRangeTests {
    @Test func parses() {
        #expect(ByteRange(header: nil, size: 10) == .whole)
        #expect(ByteRange(header: "bytes=0-4", size: 10) == .part(0..<5))
        #expect(ByteRange(header: "bytes=5-", size: 10) == .part(5..<10))
        #expect(ByteRange(header: "bytes=5-100", size: 10) == .part(5..<10))
        #expect(ByteRange(header: "bytes=-3", size: 10) == .part(7..<10))
        #expect(ByteRange(header: "bytes=-30", size: 10) == .part(0..<10))
        #expect(ByteRange(header: "bytes=10-", size: 10) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=5-4", size: 10) == .whole)
        #expect(ByteRange(header: "bytes=0-1,4-5", size: 10) == .whole)
        #expect(ByteRange(header: "items=0-1", size: 10) == .whole)
        #expect(ByteRange(header: "bytes=a-b", size: 10) == .whole)
    }
}

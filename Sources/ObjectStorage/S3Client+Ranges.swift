/// Many ranges of one object in few requests: ranges closer than a gap are read with one
/// ranged GET and cut apart here (a batch fetch of small chunks from one pack is then one
/// request, not one per chunk).
extension S3Client {
    /// One GET: the span it reads, and the indices of the ranges inside it.
    struct Span: Equatable {
        var range: Range<Int64>
        var members: [Int]
    }

    /// Spans covering `ranges`: sorted by start, a range joins the span before it when it
    /// begins at most `gap` bytes after that span's end and the span stays within `maxSpan`.
    static func spans(_ ranges: [Range<Int64>], gap: Int64, maxSpan: Int64 = 32 << 20) -> [Span] {
        var spans: [Span] = []
        for index in ranges.indices.sorted(by: { ranges[$0].lowerBound < ranges[$1].lowerBound }) {
            let range = ranges[index]
            if var last = spans.last, range.lowerBound <= last.range.upperBound + gap,
                max(last.range.upperBound, range.upperBound) - last.range.lowerBound <= maxSpan
            {
                last.range = last.range.lowerBound..<max(last.range.upperBound, range.upperBound)
                last.members.append(index)
                spans[spans.count - 1] = last
            } else {
                spans.append(Span(range: range, members: [index]))
            }
        }
        return spans
    }

    /// The bytes of each of `ranges` of `key`, in the order asked; up to 4 GETs at once.
    public func get(key: String, ranges: [Range<Int64>], mergeGap: Int64) async throws -> [[UInt8]] {
        let spans = Self.spans(ranges, gap: mergeGap)
        var out = [[UInt8]](repeating: [], count: ranges.count)
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            var next = 0
            func start() {
                guard next < spans.count else { return }
                let index = next
                next += 1
                group.addTask { (index, try await self.get(key: key, range: spans[index].range)) }
            }
            for _ in 0..<min(4, spans.count) { start() }
            while let (index, bytes) = try await group.next() {
                let span = spans[index]
                for member in span.members {
                    let range = ranges[member]
                    let from = Int(range.lowerBound - span.range.lowerBound)
                    out[member] = Array(bytes[from..<(from + Int(range.count))])
                }
                start()
            }
        }
        return out
    }
}

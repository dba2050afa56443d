import Foundation

/// A single `Range: bytes=…` request header against a body of `size` bytes.
/// Malformed or multi-range headers are ignored (whole body), as RFC 9110 allows.
enum ByteRange: Equatable, Sendable {
    case whole
    case part(Range<Int64>)
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else {
            self = .whole
            return
        }
        if bounds[0].isEmpty {
            // bytes=-N: the last N bytes.
            guard let suffix = Int64(bounds[1]), suffix >= 0 else {
                self = .whole
                return
            }
            self = suffix == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - suffix)..<size)
            return
        }
        guard let first = Int64(bounds[0]), first >= 0 else {
            self = .whole
            return
        }
        var last = size - 1
        if !bounds[1].isEmpty {
            guard let explicit = Int64(bounds[1]), explicit >= first else {
                self = .whole
                return
            }
            last = min(explicit, size - 1)
        }
        self = first >= size ? .unsatisfiable : .part(first..<(last + 1))
    }
}

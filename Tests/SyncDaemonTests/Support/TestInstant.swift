/// A made-up instant for the engine's state machines: seconds after an arbitrary origin.
/// Decisions are tested at the times a test names, without a clock or sleeping.
struct TestInstant: InstantProtocol, CustomStringConvertible {
    var offset: Duration

    /// Whole milliseconds, so that sums compare exactly.
    init(_ seconds: Double) { offset = .milliseconds(Int64((seconds * 1000).rounded())) }
    init(offset: Duration) { self.offset = offset }

    func advanced(by duration: Duration) -> TestInstant { TestInstant(offset: offset + duration) }
    func duration(to other: TestInstant) -> Duration { other.offset - offset }
    static func < (a: TestInstant, b: TestInstant) -> Bool { a.offset < b.offset }

    var description: String { "t+\(offset)" }
}

/// Seconds after the origin, as a `TestInstant`.
func at(_ seconds: Double) -> TestInstant { TestInstant(seconds) }

/// A failed test step, said in words (setup that did not work, a wait that timed out).
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

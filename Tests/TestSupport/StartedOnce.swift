import Synchronization

/// A server a whole test process shares, started on first use (blocking, once); a start that
/// failed is not tried again, every later use gets its error.
public final class StartedOnce<Value: Sendable>: Sendable {
    private let state = Mutex<Result<Value, TestFailure>?>(nil)
    private let start: @Sendable () throws -> Value

    public init(_ start: @escaping @Sendable () throws -> Value) { self.start = start }

    public func get() throws -> Value {
        try state.withLock { result in
            if let result { return try result.get() }
            let new: Result<Value, TestFailure>
            do { new = .success(try start()) } catch let error as TestFailure { new = .failure(error) } catch {
                new = .failure(TestFailure("\(error)"))
            }
            result = new
            return try new.get()
        }
    }
}

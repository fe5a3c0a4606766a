/// A C handle carried across a `@Sendable` boundary (into a Dispatch block or a `Mutex`).
/// Only for handles whose library is thread-safe (nats.c objects) or that one queue owns;
/// each use says which.
struct SendablePointer: @unchecked Sendable {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

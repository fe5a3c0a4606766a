import CNats

/// A message copied out of nats.c inside its callback, so the C message can be destroyed
/// at once and the copy can cross into async code.
public struct NATSMessage: Sendable {
  public let subject: String
  public let reply: String?
  public let data: [UInt8]
  public let contentType: String?
  /// True for the server's "no responders" status reply to a request.
  public let isNoResponders: Bool

  public init(
    subject: String, reply: String? = nil, data: [UInt8], contentType: String? = nil,
    isNoResponders: Bool = false
  ) {
    self.subject = subject
    self.reply = reply
    self.data = data
    self.contentType = contentType
    self.isNoResponders = isNoResponders
  }

  /// Copies what the project uses out of a C message; does not destroy it.
  init(copying message: OpaquePointer) {
    subject = String(cString: natsMsg_GetSubject(message))
    reply = natsMsg_GetReply(message).map { String(cString: $0) }
    let length = Int(natsMsg_GetDataLength(message))
    if length > 0, let bytes = natsMsg_GetData(message) {
      data = bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
      }
    } else {
      data = []
    }
    var value: UnsafePointer<CChar>?
    if natsMsgHeader_Get(message, "Content-Type", &value) == NATS_OK, let value {
      contentType = String(cString: value)
    } else {
      contentType = nil
    }
    isNoResponders = natsMsg_IsNoResponders(message)
  }
}

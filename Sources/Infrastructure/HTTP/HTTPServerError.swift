/// Why the HTTP server could not start.
public enum HTTPServerError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The listen setting is not `host:port` with a host this machine can resolve.
  case badAddress(String)
  /// libmicrohttpd refused to start (port taken, no permission, out of descriptors).
  case cannotListen(String)

  public var description: String {
    switch self {
    case .badAddress(let text): return "cannot listen on \(text.debugDescription): not host:port"
    case .cannotListen(let text): return "cannot listen on \(text) (address in use or not allowed)"
    }
  }
}

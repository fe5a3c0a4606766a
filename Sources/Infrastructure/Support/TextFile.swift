import FoundationEssentials

/// A file read whole as text at start (a certificate, a key): a file that cannot be read is
/// an error naming its path, so a process refuses to start with one clear line.
public enum TextFile {
  public struct Unreadable: Error, Equatable, CustomStringConvertible {
    public let path: String
    public var description: String { "cannot read \(path)" }
  }

  public static func read(_ path: String) throws(Unreadable) -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw Unreadable(path: path)
    }
    return String(decoding: data, as: UTF8.self)
  }
}

extension HTTPServer.TLSIdentity {
  /// The identity in a PEM certificate chain file and a PEM private key file.
  public init(certificateFile: String, privateKeyFile: String) throws(TextFile.Unreadable) {
    self.init(
      certificateChainPEM: try TextFile.read(certificateFile),
      privateKeyPEM: try TextFile.read(privateKeyFile))
  }
}

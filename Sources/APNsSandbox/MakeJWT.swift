import Foundation

/// `APNsSandbox make-jwt`: prints a provider token, so that a person can try the sandbox
/// with curl (`-H "authorization: bearer $(APNsSandbox make-jwt ...)"`).
enum MakeJWT {
  static func run(_ arguments: [String]) throws -> String {
    var keyPath = ""
    var teamID = ""
    var keyID = ""
    var issuedAt = Int64(Date().timeIntervalSince1970)
    var reader = ArgumentReader(arguments)
    while let flag = reader.next() {
      switch flag {
      case "--key": keyPath = try reader.value(for: flag)
      case "--team-id": teamID = try reader.value(for: flag)
      case "--key-id": keyID = try reader.value(for: flag)
      case "--iat":
        let text = try reader.value(for: flag)
        guard let seconds = Int64(text) else {
          throw SandboxOptions.Invalid(description: "--iat takes Unix seconds, got \(text)")
        }
        issuedAt = seconds
      default: throw SandboxOptions.Invalid(description: "unknown option \(flag) for make-jwt")
      }
    }
    guard !keyPath.isEmpty, !teamID.isEmpty, !keyID.isEmpty else {
      throw SandboxOptions.Invalid(description: "make-jwt needs --key, --team-id and --key-id")
    }
    let signer = ProviderTokenSigner(
      key: try ES256PrivateKey(pemFile: keyPath), keyID: keyID, teamID: teamID)
    return try signer.token(issuedAt: issuedAt)
  }
}

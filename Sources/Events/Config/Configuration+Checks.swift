import Infrastructure

/// The settings that parse but cannot work, refused at start with one line naming the
/// variable (issue 26): a worker that took them would report healthy and fail later, at
/// the first push or the first phone.
extension Configuration {
  /// Secret settings, each with the variable that may name a file holding it instead
  /// (docs/interfaces.md#secrets-in-files). Key and credential *paths* already point at
  /// files and need none.
  public static let secretFiles = [
    "MOWDECK_DATABASE_URL": "MOWDECK_DATABASE_URL_FILE",
    "MOWDECK_NOTIFICATIONS_IMAGE_SECRET": "MOWDECK_NOTIFICATIONS_IMAGE_SECRET_FILE",
    "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS":
      "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS_FILE",
    "MOWDECK_NOTIFICATIONS_NTFY_TOKEN": "MOWDECK_NOTIFICATIONS_NTFY_TOKEN_FILE",
  ]

  /// The fewest bytes of an image-URL key: HMAC-SHA256's own output size. A short key
  /// can be guessed offline from one URL, and every photo's URL forged after that.
  public static let minimumImageSecretBytes = 32

  /// A public origin, https. The phone's extension fetches only https image URLs, and the
  /// browser keeps service workers and push to secure origins, so an http origin works
  /// nowhere but on a developer's machine, where the flag allows it.
  static func publicOrigin(_ reader: EnvironmentReader, _ name: String, allowHTTP: Bool)
    throws(ConfigurationError) -> String?
  {
    guard let origin = try reader.url(name) else { return nil }
    guard allowHTTP || origin.lowercased().hasPrefix("https://") else {
      throw ConfigurationError(
        variable: name,
        problem: "must be an https origin, got \(origin.debugDescription) (phones fetch only"
          + " https; MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN=1 allows http for development)")
    }
    return origin
  }

  /// An APNs key id or team id: the 10 capital letters and digits Apple issues. A
  /// placeholder (`CHANGE_ME`) would be refused by APNs at the first push, as 403
  /// `InvalidProviderToken`, with every delivery then failing.
  static func appleID(_ reader: EnvironmentReader, _ name: String) throws(ConfigurationError)
    -> String?
  {
    guard let id = try reader.string(name) else { return nil }
    let squeezed = id.uppercased().filter { $0.isLetter }
    if squeezed.contains("CHANGEME") || squeezed.contains("PLACEHOLDER")
      || Set(id).count == 1
    {
      throw ConfigurationError(
        variable: name,
        problem: "is a placeholder, \(id.debugDescription): set the id from the Apple"
          + " Developer account")
    }
    guard id.count == 10, id.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
    else {
      throw ConfigurationError(
        variable: name,
        problem:
          "must be the 10 capital letters and digits Apple issues, got \(id.debugDescription)")
    }
    return id
  }

  /// `MOWDECK_NOTIFICATIONS_IMAGE_SECRET`: at least `minimumImageSecretBytes`. The error
  /// says how long it is, never what it is.
  static func imageSecret(_ reader: EnvironmentReader) throws(ConfigurationError) -> String? {
    let name = "MOWDECK_NOTIFICATIONS_IMAGE_SECRET"
    guard let secret = try reader.string(name) else { return nil }
    guard secret.utf8.count >= minimumImageSecretBytes else {
      throw shortSecret(name, bytes: secret.utf8.count)
    }
    return secret
  }

  /// `MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS`: each as long as a current one must be.
  static func imagePreviousSecrets(_ reader: EnvironmentReader) throws(ConfigurationError)
    -> [String]
  {
    let name = "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS"
    let secrets = try reader.list(name)
    if let index = secrets.firstIndex(where: { $0.utf8.count < minimumImageSecretBytes }) {
      throw shortSecret(name, bytes: secrets[index].utf8.count, position: index + 1)
    }
    return secrets
  }

  private static func shortSecret(_ name: String, bytes: Int, position: Int? = nil)
    -> ConfigurationError
  {
    let minimum = minimumImageSecretBytes
    let problem =
      if let position {
        "secret \(position) has \(bytes) bytes; each must be at least \(minimum)"
      } else {
        "must be at least \(minimum) bytes, has \(bytes)"
      }
    return ConfigurationError(
      variable: name, problem: problem + " (make one with: openssl rand -base64 32)")
  }
}

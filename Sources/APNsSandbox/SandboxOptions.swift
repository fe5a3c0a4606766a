/// The sandbox's settings, from its command line.
struct SandboxOptions: Sendable {
  var host = "127.0.0.1"
  var port: UInt16 = 2197
  var certificatePath = ""
  var privateKeyPath = ""
  var publicKeyPath = ""
  var teamID = ""
  var keyID = ""
  var topic = "app.mowdeck.mobile"
  var recordPath: String?
  var behaviours: [String: Behaviour] = [:]
  var behaviourFile: String?
  var maxConcurrentStreams: UInt32 = 1000

  static let usage = """
    usage: APNsSandbox --cert FILE --key FILE --public-key FILE --team-id ID --key-id ID
                       [--listen HOST:PORT] [--topic TOPIC] [--record FILE]
                       [--behaviour TOKEN=SPEC]... [--behaviour-file FILE]
                       [--max-concurrent-streams N]
           APNsSandbox make-jwt --key FILE.p8 --team-id ID --key-id ID [--iat UNIX_SECONDS]

    The APNs provider API for tests and the local stack: HTTP/2 (ALPN h2 only) over TLS on
    HOST:PORT (default 127.0.0.1:2197; port 0 picks a free one). On start it logs one JSON
    line on stderr, {"msg":"listening","port":N,...}.

      --cert, --key       the server's PEM certificate chain and private key
      --public-key        the team's P-256 public key (PEM); every request's bearer JWT
                          must be ES256-signed by it, carry kid = --key-id and iss =
                          --team-id, and an iat at most 1 hour old and at most 1 minute
                          in the future
      --topic             the only apns-topic accepted (default app.mowdeck.mobile)
      --record FILE       appends one JSON line per complete request (see below)
      --behaviour TOKEN=SPEC
                          how to answer a device token (64 hex digits, or * for every
                          token without its own entry); repeatable
      --behaviour-file FILE
                          a JSON object {"TOKEN": "SPEC", ...}, read again whenever it
                          changes; its entries win over --behaviour; xN counts of its
                          entries restart whenever it changes
      --max-concurrent-streams N
                          the HTTP/2 setting announced to clients (default 1000)

    Each request is checked first; one that fails a check gets Apple's error for it
    (MethodNotAllowed, BadPath, MissingDeviceToken, BadDeviceToken, DuplicateHeaders,
    MissingProviderToken, InvalidProviderToken, ExpiredProviderToken, MissingTopic,
    BadTopic, InvalidPushType unless "alert", BadPriority unless "10", BadExpirationDate
    unless digits, BadMessageId unless a UUID, BadCollapseId over 64 bytes,
    PayloadTooLarge over 4096 bytes, PayloadEmpty, and BadPayload, the sandbox's own,
    for a body that is not a JSON object). A valid request gets its token's behaviour:

    SPEC is ACTION or ACTIONxN (only the first N valid requests for the token get ACTION,
    later ones the normal answer: 500x2 is two 500s, then 200s). ACTION is one of
      200                   the normal answer: 200 with apns-id
      400[:REASON]          400, reason BadDeviceToken unless given
      403[:REASON]          403, reason InvalidProviderToken unless given
                            (e.g. 403:ExpiredProviderToken)
      410[:MILLISECONDS]    410 Unregistered with that timestamp (default: now)
      429[:REASON], 500[:REASON], 503[:REASON], 413[:REASON]
                            TooManyRequests, InternalServerError, ServiceUnavailable,
                            PayloadTooLarge unless given
      slow:MILLISECONDS     the normal answer after a delay; other streams go on meanwhile
      goaway                the answer, then GOAWAY (NO_ERROR): the client must reconnect
      goaway:instead        GOAWAY whose last stream id excludes this request, which is
                            never answered: it is safe to retry on a new connection
                            (curl/libcurl 7.88 report CURLE_HTTP2, 16, and do not retry)
      drop                  the TCP connection closed at once (no TLS close, no GOAWAY):
                            this and every other unanswered stream on it get nothing

    Record file: one JSON object per line, every key always present (null when it does
    not apply): time (RFC 3339, microseconds), connection (1, 2, ... in accept order),
    stream, method, path, token (from a /3/device/ path), headers (the request's apns-id,
    apns-topic, apns-push-type, apns-priority, apns-expiration, apns-collapse-id, those
    present), jwt ({alg, kid, iss, iat} as far as readable; never the signature), payload
    (the body as JSON), payload_bytes, status, reason, timestamp (410 only), apns_id (the
    answer's), behaviour (the SPEC applied), outcome (answered, dropped, refused, or
    abandoned: the stream or connection ended before a slow answer was due).

    make-jwt prints a provider token signed with the .p8 key, for trying the sandbox by
    hand with curl. Log level from MOWDECK_LOG_LEVEL (debug, info, warning, error).

    Limits of a test double: one thread polls every connection (thousands of pushes a
    second, tens of connections); no handshake or idle timeouts; IPv4 only.
    """

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  /// Thrown for --help: not an error, but the end of parsing.
  struct HelpRequested: Error {}

  static func parse(_ arguments: [String]) throws -> SandboxOptions {
    var options = SandboxOptions()
    var reader = ArgumentReader(arguments)
    while let flag = reader.next() {
      switch flag {
      case "--help", "-h": throw HelpRequested()
      case "--listen": (options.host, options.port) = try listenAddress(try reader.value(for: flag))
      case "--cert": options.certificatePath = try reader.value(for: flag)
      case "--key": options.privateKeyPath = try reader.value(for: flag)
      case "--public-key": options.publicKeyPath = try reader.value(for: flag)
      case "--team-id": options.teamID = try reader.value(for: flag)
      case "--key-id": options.keyID = try reader.value(for: flag)
      case "--topic": options.topic = try reader.value(for: flag)
      case "--record": options.recordPath = try reader.value(for: flag)
      case "--behaviour-file": options.behaviourFile = try reader.value(for: flag)
      case "--behaviour":
        let text = try reader.value(for: flag)
        guard let equals = text.firstIndex(of: "=") else {
          throw Invalid(description: "--behaviour takes TOKEN=SPEC, got \(text)")
        }
        let token = try BehaviourTable.validToken(String(text[..<equals]))
        options.behaviours[token] = try Behaviour(
          parsing: String(text[text.index(after: equals)...]))
      case "--max-concurrent-streams":
        let text = try reader.value(for: flag)
        guard let count = UInt32(text), count > 0 else {
          throw Invalid(
            description: "--max-concurrent-streams takes a positive number, got \(text)")
        }
        options.maxConcurrentStreams = count
      default: throw Invalid(description: "unknown option \(flag) (see --help)")
      }
    }
    let required = [
      ("--cert", options.certificatePath), ("--key", options.privateKeyPath),
      ("--public-key", options.publicKeyPath), ("--team-id", options.teamID),
      ("--key-id", options.keyID),
    ]
    if let missing = required.first(where: { $0.1.isEmpty }) {
      throw Invalid(description: "\(missing.0) is required (see --help)")
    }
    return options
  }

  private static func listenAddress(_ text: String) throws(Invalid) -> (String, UInt16) {
    guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
      colon > text.startIndex
    else { throw Invalid(description: "--listen takes HOST:PORT, got \(text)") }
    return (String(text[..<colon]), port)
  }
}

/// Walks a command line flag by flag.
struct ArgumentReader {
  private let arguments: [String]
  private var index = 0

  init(_ arguments: [String]) { self.arguments = arguments }

  mutating func next() -> String? {
    guard index < arguments.count else { return nil }
    defer { index += 1 }
    return arguments[index]
  }

  mutating func value(for flag: String) throws(SandboxOptions.Invalid) -> String {
    guard let value = next() else {
      throw SandboxOptions.Invalid(description: "\(flag) needs a value")
    }
    return value
  }
}

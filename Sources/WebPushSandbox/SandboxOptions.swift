import Infrastructure

/// The sandbox's settings, from its command line.
struct SandboxOptions: Sendable, Equatable {
  var listen = "127.0.0.1:0"
  var certificatePath = ""
  var privateKeyPath = ""
  var recordPath: String?
  /// The host named in endpoints and expected in VAPID's `aud`, lower case.
  var endpointHost = "localhost"

  static let usage = """
    usage: WebPushSandbox --cert FILE --key FILE [--listen HOST:PORT] [--record FILE]
                          [--endpoint-host HOST]

    A Web Push service (RFC 8030, with RFC 8291 encryption and RFC 8292 VAPID) for tests and
    the local stack: HTTP/1.1 over TLS on HOST:PORT (default 127.0.0.1:0; port 0 picks a
    free one). On start it logs one JSON line on stderr, {"msg":"listening","port":N,...}.

      --cert, --key       the server's PEM certificate chain and private key
      --record FILE       appends one JSON line per push (see below)
      --endpoint-host H   the host in the endpoints it hands out (default localhost); a
                          push's VAPID aud must be https://H:PORT

    POST /subscriptions   body {"answer":201,"retry_after":30,"application_server_key":"..."}
                          (every field optional; also an empty body). answer is what valid
                          pushes get: 201 (default), 404, 410, 413, 429, 500 or 503, or a
                          redirect (301, 302, 303, 307 or 308) to location, an http or
                          https URL that goes with a redirect only (a push worker must not
                          follow it); retry_after (seconds, only with 429 or 503) adds
                          Retry-After; application_server_key (base64url, 65 bytes) binds
                          the subscription to that VAPID key; delay_ms (0 to 60000) holds
                          each answer that long (a slow service). Answers 201 with what a
                          browser's PushSubscription.toJSON() gives:
                          {"endpoint":"https://H:PORT/push/ID","expirationTime":null,
                           "keys":{"auth":"<16 bytes>","p256dh":"<65 bytes>"}}
                          The keys are fresh for each subscription and kept in memory only.
    POST /push/ID         a push. Unknown ID: 404. Then, in this order:
                          Authorization missing or not a valid `vapid t=JWT, k=KEY` (ES256
                          signature, exp in the next 24 hours), or aud not https://H:PORT:
                          401; k not the subscription's application_server_key: 403;
                          TTL missing or not a non-negative integer, Urgency not very-low,
                          low, normal or high, Topic over 32 characters or not base64url,
                          a body without Content-Encoding aes128gcm: 400; a body over
                          4096 bytes: 413; a body that does not decrypt with the
                          subscription's keys: 400. A push passing every check gets the
                          subscription's answer: 201 with Location, or the configured
                          status (429 and 503 with Retry-After when given, a redirect with
                          Location: location). A push without a body is valid and needs no
                          Content-Encoding, as in RFC 8030.

    Record file: one JSON object per push to /push/, every key always present (null when it
    does not apply): time (RFC 3339, microseconds), subscription (the ID), status (the
    answer), error (why a check failed, or null), ttl, urgency, topic, vapid_sub, vapid_aud
    and vapid_jwt (from a JWT whose signature verified; the JWT as received, so that tests
    can look for it in the sender's logs), payload (the decrypted text, or null),
    payload_bytes (the encrypted body's length). Keys and auth secrets are never recorded.

    Log level from MOWDECK_LOG_LEVEL (debug, info, warning, error).
    """

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  /// Thrown for --help: not an error, but the end of parsing.
  struct HelpRequested: Error {}

  static func parse(_ arguments: [String]) throws -> SandboxOptions {
    var options = SandboxOptions()
    var index = 0
    func value(for flag: String) throws(Invalid) -> String {
      index += 1
      guard index < arguments.count else { throw Invalid(description: "\(flag) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let flag = arguments[index]
      switch flag {
      case "--help", "-h": throw HelpRequested()
      case "--listen":
        let text = try value(for: flag)
        guard let colon = text.lastIndex(of: ":"), colon > text.startIndex,
          UInt16(text[text.index(after: colon)...]) != nil
        else { throw Invalid(description: "--listen takes HOST:PORT, got \(text)") }
        options.listen = text
      case "--cert": options.certificatePath = try value(for: flag)
      case "--key": options.privateKeyPath = try value(for: flag)
      case "--record": options.recordPath = try value(for: flag)
      case "--endpoint-host":
        let text = try value(for: flag)
        guard let host = Self.validHost(text) else {
          throw Invalid(description: "--endpoint-host takes a host name or address, got \(text)")
        }
        options.endpointHost = host
      default: throw Invalid(description: "unknown option \(flag) (see --help)")
      }
      index += 1
    }
    if options.certificatePath.isEmpty { throw Invalid(description: "--cert is required") }
    if options.privateKeyPath.isEmpty { throw Invalid(description: "--key is required") }
    return options
  }

  /// The host in lower case when `https://HOST:1` is a URL with exactly that host (an IPv6
  /// address in brackets), else nil.
  static func validHost(_ text: String) -> String? {
    let host = text.lowercased()
    guard !host.isEmpty, !host.contains(where: { "/?#@ ".contains($0) }),
      VAPIDAuthorization.audience(ofEndpoint: "https://\(host):1") == "https://\(host):1"
    else { return nil }
    return host
  }
}

import Infrastructure

/// The sandbox's settings, from its command line.
struct SandboxOptions: Sendable, Equatable {
  var listen = "127.0.0.1:0"
  var certificatePath = ""
  var privateKeyPath = ""
  var recordPath: String?
  /// The service account's public key (PEM, or a certificate), its email and its project.
  var publicKeyPath = ""
  var clientEmail = ""
  var projectID = ""
  /// The host clients name in the token URL, which assertions must carry as `aud`.
  var host = "localhost"
  /// `expires_in` of the access tokens granted, until `POST /token-endpoint` says other.
  var tokenLifetime = 3599
  /// Messages to registration tokens not made with `POST /tokens` succeed (for the local
  /// stack, where phones register tokens of their own) instead of answering UNREGISTERED.
  var acceptAnyToken = false

  static let usage = """
    usage: FCMSandbox --cert FILE --key FILE --public-key FILE --client-email EMAIL
                      --project-id ID [--listen HOST:PORT] [--record FILE] [--host HOST]
                      [--token-lifetime SECONDS] [--accept-any-token]

    Firebase Cloud Messaging's HTTP v1 API and Google's OAuth 2 token endpoint, for tests
    and the local stack: HTTP/2 (ALPN h2 only, as APNsSandbox) over TLS on HOST:PORT
    (default 127.0.0.1:0; port 0 picks a free one; IPv4 only). On start it logs one JSON
    line on stderr, {"msg":"listening","port":N,...}.

      --cert, --key        the server's PEM certificate chain and private key
      --public-key FILE    the service account's RSA public key (PEM, or a certificate)
      --client-email E     the service account's client_email (the assertion's iss)
      --project-id ID      the Firebase project messages are sent to
      --record FILE        appends one JSON line per token request and per send (below)
      --host H             the host of the token URL (default localhost): an assertion's
                           aud must be https://H:PORT/token, the service account's token_uri
      --token-lifetime S   expires_in of granted access tokens (default 3599, 1 to 3600)
      --accept-any-token   messages to unknown registration tokens succeed (default: 404
                           UNREGISTERED), for phones registering tokens of their own

    POST /token           the token endpoint (RFC 7523 JWT bearer grant): form fields
                          grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer and
                          assertion=<JWT>. Checks, answering 400 with RFC 6749's
                          {"error":...,"error_description":...}: the grant type
                          (unsupported_grant_type); three base64url parts with header alg
                          RS256 (invalid_grant); iss the client email (invalid_grant,
                          "Invalid grant: account not found"); the RS256 signature with the
                          public key (invalid_grant, "Invalid JWT Signature."); aud the token
                          URL (invalid_grant); exp after now, exp - iat at most 3600 and iat
                          at most 300 s ahead (invalid_grant); a scope (invalid_scope). Then
                          {"access_token":"ya29.…","expires_in":N,"token_type":"Bearer"}. As
                          at Google, a token granted without the scope
                          https://www.googleapis.com/auth/firebase.messaging (or
                          .../cloud-platform) is refused by the send route with 403.
    POST /v1/projects/P/messages:send
                          Authorization: Bearer <a granted, unexpired token> or 401
                          UNAUTHENTICATED; the token's scope or 403 PERMISSION_DENIED; P the
                          project or 403 PERMISSION_DENIED. Then the body:
                          {"message":{...},"validate_only":false} with exactly a token
                          target ([A-Za-z0-9_:-], 1 to 4096 characters, else 400 with the
                          FcmError INVALID_ARGUMENT detail), notification.title/body/image
                          strings, data a map of strings (no reserved key, at most 4096
                          bytes), android.priority NORMAL or HIGH, android.ttl a duration
                          ("1800s", at most 2419200s), android.notification.tag/image/...
                          strings; an unknown field or a wrong type is 400 INVALID_ARGUMENT
                          with a google.rpc.BadRequest field violation, as Google answers.
                          A valid message gets its token's answer: 200
                          {"name":"projects/P/messages/ID"}, or the FCM error programmed for
                          it, {"error":{"code":N,"message":...,"status":...,"details":[{
                          "@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError",
                          "errorCode":E}]}}: UNREGISTERED 404 NOT_FOUND, INVALID_ARGUMENT 400,
                          SENDER_ID_MISMATCH 403 PERMISSION_DENIED, QUOTA_EXCEEDED 429
                          RESOURCE_EXHAUSTED, UNAVAILABLE 503, INTERNAL 500,
                          THIRD_PARTY_AUTH_ERROR 401 UNAUTHENTICATED.

    Controls (no authentication):
    POST /tokens          body {"answer":"OK","retry_after":30,"delay_ms":0}, every field
                          optional (also an empty body): makes a fresh registration token
                          whose valid messages are answered `answer` (OK or one of the FCM
                          errors above); retry_after (seconds) adds Retry-After to
                          QUOTA_EXCEEDED, UNAVAILABLE and INTERNAL; delay_ms (0 to 60000)
                          holds each answer that long. Answers 201 {"token":"..."}.
    POST /token-endpoint  body {"answer":"OK","expires_in":3599,"delay_ms":0}, every field
                          optional: how valid assertions are answered from now on. answer
                          OK grants; INVALID_GRANT answers 400 invalid_grant (a deleted
                          key); UNAVAILABLE answers 503. Answers 200 with the settings.
    POST /access-tokens/expire
                          every access token granted so far expires now (sends with it get
                          401), as when Google ends a token early. Answers 200
                          {"expired":N}.

    Record file: one JSON object per request to /token and to the send route, every key
    always present (null when it does not apply): time (RFC 3339, microseconds), route
    ("token" or "send"), connection (1, 2, ... in accept order) and stream (the HTTP/2
    stream id), status, error (the OAuth error or the Google status or FCM error
    code answered, or null), detail (why, or null), access_token (granted, or presented),
    expires_in, iss, scope, aud (from an assertion whose signature verified), project,
    registration_token, message (the message object sent), name (a sent message's name).

    Log level from MOWDECK_LOG_LEVEL (debug, info, warning, error).
    """

  typealias Invalid = CommandLineFlags.Invalid

  /// Thrown for --help: not an error, but the end of parsing.
  struct HelpRequested: Error {}

  static func parse(_ arguments: [String]) throws -> SandboxOptions {
    var options = SandboxOptions()
    var flags = CommandLineFlags(arguments)
    while let flag = flags.next() {
      switch flag {
      case "--help", "-h": throw HelpRequested()
      case "--listen": options.listen = try flags.listenAddress(of: flag)
      case "--cert": options.certificatePath = try flags.value(of: flag)
      case "--key": options.privateKeyPath = try flags.value(of: flag)
      case "--record": options.recordPath = try flags.value(of: flag)
      case "--public-key": options.publicKeyPath = try flags.value(of: flag)
      case "--client-email": options.clientEmail = try flags.value(of: flag)
      case "--project-id": options.projectID = try flags.value(of: flag)
      case "--host": options.host = try flags.host(of: flag)
      case "--token-lifetime": options.tokenLifetime = try flags.integer(of: flag, in: 1...3600)
      case "--accept-any-token": options.acceptAnyToken = true
      default: throw CommandLineFlags.unknown(flag)
      }
    }
    for (name, given) in [
      ("--cert", options.certificatePath), ("--key", options.privateKeyPath),
      ("--public-key", options.publicKeyPath), ("--client-email", options.clientEmail),
      ("--project-id", options.projectID),
    ] where given.isEmpty {
      throw Invalid(description: "\(name) is required")
    }
    return options
  }
}

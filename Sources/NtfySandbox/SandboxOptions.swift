import Infrastructure

/// The sandbox's settings, from its command line.
struct SandboxOptions: Sendable, Equatable {
  var listen = "127.0.0.1:0"
  var certificatePath = ""
  var privateKeyPath = ""
  var recordPath: String?
  /// The access token publishes and polls must carry (`Authorization: Bearer <token>`), as
  /// on an ntfy server whose topics are closed to anonymous users; nil: open to everyone.
  var token: String?

  static let usage = """
    usage: NtfySandbox --cert FILE --key FILE [--listen HOST:PORT] [--record FILE]
                       [--token TOKEN]

    An ntfy server (publish and poll, as ntfy 2.16 answers them, sequence ids included) for
    tests and the local stack: HTTP/1.1 over TLS on HOST:PORT (default 127.0.0.1:0; port 0
    picks a free one). On start it logs one JSON line on stderr,
    {"msg":"listening","port":N,...}. Messages are kept in memory only.

      --cert, --key   the server's PEM certificate chain and private key
      --record FILE   appends one JSON line per publish (see below)
      --token TOKEN   publishes and polls need Authorization: Bearer TOKEN: none at all is
                      403 (anonymous access denied), another value 401, as ntfy answers

    POST or PUT /TOPIC, and /TOPIC/SEQUENCE_ID
                          a publish. TOPIC and SEQUENCE_ID: 1 to 64 of [-_A-Za-z0-9], else
                          400 (40009 for the topic). The body is the message (UTF-8, at most
                          4096 bytes, else 400 40014 as on a server without attachments;
                          empty becomes "triggered"). Headers, each with ntfy's aliases:
                          X-Title (Title, ti, t); X-Priority (Priority, prio, p: 1 to 5 or
                          min, low, default, high, max, urgent, else 400 40007; an RFC 9218
                          value such as u=3 is ignored); X-Tags (Tags, tag, ta: a comma
                          list); X-Click (Click); X-Attach (Attach, a: an http(s) URL, else
                          400 40013); X-Filename (Filename, file, f); X-Sequence-ID
                          (Sequence-ID, SID). Values may be RFC 2047 encoded words
                          (=?UTF-8?B?...?=), decoded as ntfy does. A publish passing every
                          check gets the topic's programmed answer: by default 200 with the
                          message as JSON (below), kept in the topic; otherwise the
                          programmed status with ntfy's error JSON
                          {"code":N,"http":S,"error":"..."} (502 and 503 as a proxy's
                          plain text), with Retry-After when programmed; nothing is kept.
    GET /TOPIC/json?poll=1
                          the topic's messages as ntfy's poll answers them: every message
                          published, in order, one JSON object a line
                          (application/x-ndjson). ntfy keeps each message of a sequence in
                          its cache (an update is a new message with the same sequence_id,
                          which subscribed clients show in place of the earlier one), so
                          the poll shows both. Without poll=1: 400 (no streaming here).
    GET /sandbox/topics/TOPIC/view
                          what a subscribed phone shows: the messages with each one replaced
                          in place by the latest of its sequence (a message's sequence is
                          its sequence_id, or its id), one JSON object a line. No token
                          needed.
    POST /sandbox/topics/TOPIC
                          body {"answer":429,"retry_after":30,"delay_ms":0}, every field
                          optional (an empty body restores the default): how the topic's
                          valid publishes are answered from now on. answer is 200 (default),
                          401, 403, 413, 429, 500, 502 or 503; retry_after (seconds, with
                          429 and 5xx only) adds Retry-After; delay_ms (0 to 60000) holds
                          each answer that long (a slow server); a publish is kept and
                          recorded when it is answered. Answers 200 with the settings.

    Message JSON (ntfy's, keys absent when empty): id (12 characters), time and expires (Unix
    seconds; 12 hours' cache), event ("message"), topic, title, message, priority, tags,
    click, attachment {"name":...,"url":...} (name from X-Filename, else the URL's last path
    segment), sequence_id.

    Record file: one JSON object per publish, every key always present (null when it does
    not apply): time (RFC 3339, microseconds), topic, status, error (why it was refused, or
    null), token (the bearer token presented, or null), id (the message's, when kept), title,
    message, priority (1 to 5), tags, click, attach, filename, sequence_id (as read, decoded).

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
      case "--token":
        let token = try flags.value(of: flag)
        guard !token.isEmpty, token.utf8.allSatisfy({ (33...126).contains($0) }) else {
          throw Invalid(description: "--token takes printable ASCII without spaces")
        }
        options.token = token
      default: throw CommandLineFlags.unknown(flag)
      }
    }
    if options.certificatePath.isEmpty { throw Invalid(description: "--cert is required") }
    if options.privateKeyPath.isEmpty { throw Invalid(description: "--key is required") }
    return options
  }
}

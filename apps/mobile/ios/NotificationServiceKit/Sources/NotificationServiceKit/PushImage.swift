// Every decision the Notification Service Extension makes about a push photo lives in this file:
// which `image_url` values it accepts, when it asks the server, what each answer means, and how
// the photo reaches a file. It imports Foundation only, so it builds and is tested on Linux as on
// iOS; the extension and `push-image-fetch` supply the real HTTP call and clock.

import Foundation

// MARK: - What the fetch loop needs from the outside world

/// One HTTP GET. Implementations must give up by themselves after `timeout` seconds and must not
/// follow redirects: a redirect could lead away from the https push-image URL that was checked.
public protocol PushImageHTTP: Sendable {
  /// Stops reading the body once it exceeds `maxBytes` and says so in the reply, so a huge body
  /// never has to fit in the extension's small memory budget.
  func get(_ url: URL, timeout: TimeInterval, maxBytes: Int) async -> PushImageHTTPAnswer
}

/// A clock in seconds from an arbitrary fixed point. The loop reads it and sleeps on it only, so
/// tests drive it with virtual time.
public protocol PushImageClock: Sendable {
  func now() -> TimeInterval
  /// Returns once `now() >= deadline`; throws `CancellationError` when the task is cancelled.
  func sleep(until deadline: TimeInterval) async throws
}

/// What came back from one GET.
public enum PushImageHTTPAnswer: Sendable, Equatable {
  case reply(PushImageHTTPReply)
  case timedOut
  case networkError(String)
}

public struct PushImageHTTPReply: Sendable, Equatable {
  public var status: Int
  /// The raw `Content-Type` header value, if any.
  public var contentType: String?
  /// The body, or the part read before the transport stopped at the size cap.
  public var body: Data
  /// True when the transport stopped reading because the body was over the cap.
  public var bodyExceededLimit: Bool

  public init(status: Int, contentType: String?, body: Data, bodyExceededLimit: Bool = false) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.bodyExceededLimit = bodyExceededLimit
  }
}

// MARK: - The fetcher

/// Fetches the photo named by a push's `image_url` and writes it to a temporary `.jpg` file.
public struct PushImage: Sendable {
  /// The only path a push-image URL may have, followed by the notification's UUID.
  public static let pathPrefix = "/api/v1/notifications/push-images/"
  /// 10 MiB. The server sends camera JPEGs of a few hundred KiB; the extension's memory limit is
  /// a few tens of MiB, so anything near this is a wrong answer, not a photo.
  public static let defaultMaxBytes = 10 * 1024 * 1024
  /// Longer URLs are not push-image URLs and are refused before any parsing.
  public static let maxURLLength = 2048

  public var http: any PushImageHTTP
  public var clock: any PushImageClock
  /// Where the `.jpg` is written; the system moves it into its own store on attach.
  public var directory: URL
  public var plan: Plan
  public var maxBytes: Int

  public init(
    http: any PushImageHTTP, clock: any PushImageClock, directory: URL,
    plan: Plan = .standard, maxBytes: Int = PushImage.defaultMaxBytes
  ) {
    self.http = http
    self.clock = clock
    self.directory = directory
    self.plan = plan
    self.maxBytes = maxBytes
  }

  /// Runs the whole exchange. It never throws: every failure is an outcome, and the caller shows
  /// the unchanged text notification for anything but `.attached`.
  public func fetch(imageURL: String) async -> Outcome {
    let request: Request
    do {
      request = try Self.accept(imageURL)
    } catch {
      return .rejectedURL(error)
    }
    let start = clock.now()
    var attempts = 0
    var previousStart: TimeInterval?
    var lastRetry: RetryReason?
    func elapsed() -> TimeInterval { clock.now() - start }

    while true {
      if Task.isCancelled { return .gaveUp(.cancelled, after: elapsed(), attempts: attempts) }
      guard
        case .ask(let at, let timeout) = plan.next(elapsed: elapsed(), previousStart: previousStart)
      else {
        // The plan only stops after at least one attempt, so `lastRetry` is set here.
        let reason = GiveUpReason.windowClosed(lastAnswer: lastRetry ?? .notFound)
        return .gaveUp(reason, after: elapsed(), attempts: attempts)
      }
      do {
        try await clock.sleep(until: start + at)
      } catch {
        return .gaveUp(.cancelled, after: elapsed(), attempts: attempts)
      }
      attempts += 1
      previousStart = at
      let answer = await http.get(request.url, timeout: timeout, maxBytes: maxBytes)
      if Task.isCancelled { return .gaveUp(.cancelled, after: elapsed(), attempts: attempts) }
      switch Self.judge(answer, maxBytes: maxBytes) {
      case .attach(let jpeg):
        do {
          let file = try Self.writeTemporaryJPEG(jpeg, in: directory)
          return .attached(file, bytes: jpeg.count, after: elapsed(), attempts: attempts)
        } catch {
          return .gaveUp(.fileNotWritten(error.message), after: elapsed(), attempts: attempts)
        }
      case .askAgain(let reason):
        lastRetry = reason
      case .stop(let reason):
        return .gaveUp(reason, after: elapsed(), attempts: attempts)
      }
    }
  }
}

// MARK: - Outcomes

extension PushImage {
  public enum Outcome: Sendable, Equatable {
    /// The photo is in `file`; `after` is seconds since the fetch began.
    case attached(URL, bytes: Int, after: TimeInterval, attempts: Int)
    case gaveUp(GiveUpReason, after: TimeInterval, attempts: Int)
    /// The URL broke a rule; nothing was asked.
    case rejectedURL(URLRejection)
  }

  /// Why an answer means "ask again".
  public enum RetryReason: Sendable, Equatable {
    /// 404: the photo is not uploaded yet.
    case notFound
    case timedOut
    case networkError(String)
  }

  public enum GiveUpReason: Sendable, Equatable {
    /// The window closed while the server kept saying "not yet" (or did not answer).
    case windowClosed(lastAnswer: RetryReason)
    /// 410: there will never be a photo (expired link, no camera, deleted).
    case gone
    /// Any status but 200, 404 and 410, including 3xx (redirects are never followed) and 429.
    case unexpectedStatus(Int)
    case wrongContentType(String?)
    case notJPEG
    case tooLarge
    case cancelled
    case fileNotWritten(String)
  }
}

// MARK: - Which URLs are accepted

extension PushImage {
  /// A URL that passed every rule, with the parts the rules read.
  public struct Request: Sendable, Equatable {
    public var url: URL
    public var host: String
    public var port: Int?
    public var notificationID: UUID
    /// The `e` parameter, unix seconds. The extension does not judge it: the phone's clock may be
    /// wrong, and the server answers 410 for an expired link anyway.
    public var expiry: Int64
  }

  public enum URLRejection: Error, Sendable, Equatable {
    case tooLong
    /// Non-ASCII (IDN hosts among them), spaces or control characters.
    case notPrintableASCII
    /// Anything but a lower-case `https://` prefix.
    case notHTTPS
    case hasCredentials
    case hasFragment
    case badHost
    case badPort
    case wrongPath
    case badNotificationID
    case missingParameter(String)
    case repeatedParameter(String)
    case unexpectedParameter
    case badExpiry
    case badSignature
    /// The string passed these rules but Foundation reads it differently; never expected.
    case foundationDisagrees
  }

  /// Checks `string` against the push-image URL rules by reading it character by character,
  /// not by trusting a URL parser: parsers differ between platforms and versions in how they
  /// treat percent-encoding, dot segments and odd hosts. The rules:
  ///
  /// - printable ASCII only, at most `maxURLLength` characters;
  /// - `https://` exactly (lower case), never anything else;
  /// - no user or password (`@` in the authority), no fragment (`#` anywhere);
  /// - host: a DNS name of letters, digits and inner hyphens, no trailing dot, no `xn--` label
  ///   (punycode is an IDN in ASCII dress), or a dotted-quad IPv4 address without leading zeros;
  ///   IPv6 literals and numeric forms such as `2130706433` or `127.1` are refused;
  /// - port optional, 1 to 65535, no leading zero (self-hosted servers use other ports);
  /// - path exactly `pathPrefix` + a UUID (hex in either case): no `%`, no `..`, no `//`;
  /// - query exactly `e` (1 to 12 digits, no leading zero) and `s` (1 to 512 base64url
  ///   characters, no padding), each once, in either order, and nothing else.
  public static func accept(_ string: String) throws(URLRejection) -> Request {
    guard string.utf8.count <= maxURLLength else { throw .tooLong }
    guard string.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
      throw .notPrintableASCII
    }
    let scheme = "https://"
    guard string.hasPrefix(scheme) else { throw .notHTTPS }
    guard !string.contains("#") else { throw .hasFragment }

    let afterScheme = string.dropFirst(scheme.count)
    let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
    let authority = afterScheme[..<authorityEnd]
    guard !authority.contains("@") else { throw .hasCredentials }
    let (host, port) = try parseAuthority(authority)

    let pathAndQuery = afterScheme[authorityEnd...]
    guard let questionMark = pathAndQuery.firstIndex(of: "?") else {
      try checkPath(pathAndQuery)
      throw .missingParameter("e")
    }
    let path = pathAndQuery[..<questionMark]
    let query = pathAndQuery[pathAndQuery.index(after: questionMark)...]
    let notificationID = try checkPath(path)
    let expiry = try checkQuery(query)

    guard let url = URL(string: string), foundationAgrees(url, host: host, path: path, query: query)
    else { throw .foundationDisagrees }
    return Request(
      url: url, host: host, port: port, notificationID: notificationID, expiry: expiry)
  }

  private static func parseAuthority(
    _ authority: Substring
  ) throws(URLRejection) -> (host: String, port: Int?) {
    guard let colon = authority.firstIndex(of: ":") else {
      guard isAllowedHost(authority) else { throw .badHost }
      return (String(authority), nil)
    }
    let host = authority[..<colon]
    guard isAllowedHost(host) else { throw .badHost }
    let portText = authority[authority.index(after: colon)...]
    guard let port = decimal(portText, maxDigits: 5), (1...65_535).contains(port) else {
      throw .badPort
    }
    return (String(host), Int(port))
  }

  private static func isAllowedHost(_ host: Substring) -> Bool {
    guard !host.isEmpty, host.count <= 253 else { return false }
    let labels = host.split(separator: ".", omittingEmptySubsequences: false)
    // A host whose last label is all digits can only be a dotted-quad IPv4 address; this refuses
    // the decimal, octal and short forms that resolvers expand in surprising ways.
    if let last = labels.last, last.allSatisfy(isDigit) {
      return labels.count == 4
        && labels.allSatisfy { decimal($0, maxDigits: 3).map { $0 <= 255 } ?? false }
    }
    return labels.allSatisfy { label in
      !label.isEmpty && label.count <= 63
        && label.allSatisfy { isLetter($0) || isDigit($0) || $0 == "-" }
        && label.first != "-" && label.last != "-"
        && !label.lowercased().hasPrefix("xn--")
    }
  }

  @discardableResult
  private static func checkPath(_ path: Substring) throws(URLRejection) -> UUID {
    guard path.hasPrefix(pathPrefix) else { throw .wrongPath }
    let id = path.dropFirst(pathPrefix.count)
    guard !id.contains("/") else { throw .wrongPath }
    // Foundation's UUID parser is lenient about case only; the shape check keeps it that way.
    let shape =
      id.count == 36
      && id.enumerated().allSatisfy { offset, char in
        [8, 13, 18, 23].contains(offset) ? char == "-" : char.isHexDigit
      }
    guard shape, let uuid = UUID(uuidString: String(id)) else { throw .badNotificationID }
    return uuid
  }

  private static func checkQuery(_ query: Substring) throws(URLRejection) -> Int64 {
    var expiryText: Substring?
    var signature: Substring?
    for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
      guard let equals = pair.firstIndex(of: "=") else { throw .unexpectedParameter }
      let name = pair[..<equals]
      let value = pair[pair.index(after: equals)...]
      switch name {
      case "e":
        guard expiryText == nil else { throw .repeatedParameter("e") }
        expiryText = value
      case "s":
        guard signature == nil else { throw .repeatedParameter("s") }
        signature = value
      default:
        throw .unexpectedParameter
      }
    }
    guard let expiryText else { throw .missingParameter("e") }
    guard let signature else { throw .missingParameter("s") }
    guard let expiry = decimal(expiryText, maxDigits: 12) else { throw .badExpiry }
    let base64url = signature.allSatisfy { isLetter($0) || isDigit($0) || $0 == "-" || $0 == "_" }
    guard (1...512).contains(signature.count), base64url else { throw .badSignature }
    return expiry
  }

  /// A second opinion from Foundation: the URL it builds must have exactly the parts read above,
  /// so the request goes where the rules looked.
  private static func foundationAgrees(
    _ url: URL, host: String, path: Substring, query: Substring
  ) -> Bool {
    url.scheme == "https" && url.host?.lowercased() == host.lowercased() && url.user == nil
      && url.password == nil && url.fragment == nil && url.path == String(path)
      && url.query == String(query)
  }

  /// Digits only, no sign, no leading zero, at most `maxDigits`.
  private static func decimal(_ text: Substring, maxDigits: Int) -> Int64? {
    guard (1...maxDigits).contains(text.count), text.allSatisfy(isDigit) else { return nil }
    guard text.count == 1 || text.first != "0" else { return nil }
    return Int64(text)
  }

  // Character's own isLetter/isNumber accept far more than ASCII; these do not.
  private static func isDigit(_ char: Character) -> Bool { ("0"..."9").contains(char) }
  private static func isLetter(_ char: Character) -> Bool {
    ("a"..."z").contains(char) || ("A"..."Z").contains(char)
  }
}

// MARK: - When to ask

extension PushImage {
  /// The polling plan. Times are seconds since the fetch began.
  public struct Plan: Sendable, Equatable {
    /// Nothing is asked after this: the system gives the extension about 30 s in all, and a
    /// late photo is worth less than a prompt notification.
    public var window: TimeInterval
    /// Requests start at least this far apart ("once a second").
    public var interval: TimeInterval
    /// No single request may take longer.
    public var requestTimeout: TimeInterval
    /// A request with less time than this left is not started: it could hardly fetch a photo.
    /// Half a second, so the attempt planned for second 13 still runs when it starts a few
    /// milliseconds late on a real clock.
    public var minimumTimeout: TimeInterval

    public static let standard = Plan(
      window: 14, interval: 1, requestTimeout: 6, minimumTimeout: 0.5)

    public init(
      window: TimeInterval, interval: TimeInterval, requestTimeout: TimeInterval,
      minimumTimeout: TimeInterval
    ) {
      self.window = window
      self.interval = interval
      self.requestTimeout = requestTimeout
      self.minimumTimeout = minimumTimeout
    }

    public enum Step: Sendable, Equatable {
      /// Start a request at `at` seconds that gives up after `timeout` seconds.
      case ask(at: TimeInterval, timeout: TimeInterval)
      case stop
    }

    /// The next request starts one interval after the previous one started, or now if that
    /// moment has passed (a slow answer), and always finishes inside the window: its timeout is
    /// the smaller of `requestTimeout` and the time left.
    public func next(elapsed: TimeInterval, previousStart: TimeInterval?) -> Step {
      let at = max(elapsed, previousStart.map { $0 + interval } ?? 0)
      let left = window - at
      guard left >= minimumTimeout else { return .stop }
      return .ask(at: at, timeout: min(requestTimeout, left))
    }
  }
}

// MARK: - What each answer means

extension PushImage {
  public enum Verdict: Sendable, Equatable {
    case attach(Data)
    case askAgain(RetryReason)
    case stop(GiveUpReason)
  }

  /// 200 with `image/jpeg` and a JPEG body within the cap is the photo; 404, a timeout and a
  /// network error mean "not yet"; 410 means "never"; everything else stops, because retrying
  /// an answer we do not understand (429 among them) only adds load.
  public static func judge(_ answer: PushImageHTTPAnswer, maxBytes: Int) -> Verdict {
    let reply: PushImageHTTPReply
    switch answer {
    case .timedOut: return .askAgain(.timedOut)
    case .networkError(let message): return .askAgain(.networkError(message))
    case .reply(let value): reply = value
    }
    switch reply.status {
    case 200: break
    case 404: return .askAgain(.notFound)
    case 410: return .stop(.gone)
    default: return .stop(.unexpectedStatus(reply.status))
    }
    guard isJPEGContentType(reply.contentType) else {
      return .stop(.wrongContentType(reply.contentType))
    }
    guard !reply.bodyExceededLimit, reply.body.count <= maxBytes else { return .stop(.tooLarge) }
    guard isJPEG(reply.body) else { return .stop(.notJPEG) }
    return .attach(reply.body)
  }

  /// `image/jpeg`, in any case, with or without parameters such as `; charset=binary`.
  public static func isJPEGContentType(_ value: String?) -> Bool {
    guard let value else { return false }
    let mediaType = value.split(separator: ";", maxSplits: 1).first ?? ""
    return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "image/jpeg"
  }

  /// Starts with SOI and a marker (FF D8 FF) and ends with EOI (FF D9), the two not overlapping.
  /// The bytes are never decoded: the system does that, and decoding here would cost memory.
  public static func isJPEG(_ data: Data) -> Bool {
    data.count >= 5 && data.prefix(3).elementsEqual([0xFF, 0xD8, 0xFF])
      && data.suffix(2).elementsEqual([0xFF, 0xD9])
  }
}

// MARK: - Writing the file

extension PushImage {
  public struct FileWriteError: Error, Sendable, Equatable {
    public var message: String
  }

  /// Writes the bytes as they came to a new `push-image-<UUID>.jpg` in `directory`. The `.jpg`
  /// extension is what tells the system the attachment's type; a fresh name per push means no
  /// file of an earlier push is ever overwritten.
  public static func writeTemporaryJPEG(
    _ data: Data, in directory: URL
  ) throws(FileWriteError) -> URL {
    let file = directory.appendingPathComponent("push-image-\(UUID().uuidString).jpg")
    do {
      try data.write(to: file, options: .withoutOverwriting)
    } catch {
      throw FileWriteError(message: "\(file.path): \(error.localizedDescription)")
    }
    return file
  }
}

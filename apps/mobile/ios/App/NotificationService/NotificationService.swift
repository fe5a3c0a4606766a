// The Notification Service Extension: adds the alarm's photo to a push that names one in
// `image_url`, and otherwise delivers the text exactly as it came.
//
// Every decision is PushImage's (NotificationServiceKit/Sources/NotificationServiceKit). The
// Xcode target (../../project.yml) links the local package's `NotificationServiceKit` library;
// the conditional import below would also serve a target compiling those files directly.
// On Linux, NotificationServiceKit's Package.swift compiles this file against a stand-in
// `UserNotifications` module (LinuxTypeCheck/, ADR 0038), so it is type-checked there too.

#if canImport(UserNotifications)
  import Foundation
  import UserNotifications
  #if canImport(NotificationServiceKit)
    import NotificationServiceKit
  #endif

  final class NotificationService: UNNotificationServiceExtension {
    private let delivery = Delivery()

    override func didReceive(
      _ request: UNNotificationRequest,
      withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
      let original = request.content
      guard let imageURL = original.userInfo["image_url"] as? String else {
        contentHandler(original)
        return
      }
      delivery.begin(original: original, handler: contentHandler)
      let delivery = self.delivery
      let fetch = Task {
        let fetcher = PushImage(
          http: URLSessionPushImageHTTP(), clock: MonotonicClock(),
          directory: FileManager.default.temporaryDirectory)
        delivery.finish(with: await fetcher.fetch(imageURL: imageURL))
      }
      delivery.track(fetch)
    }

    // The system is about to kill the extension: show the text now, photo or not.
    override func serviceExtensionTimeWillExpire() {
      delivery.deliverOriginal()
    }
  }

  /// Hands the content to the system exactly once, whichever comes first: the fetch's outcome
  /// or the system's time running out. The two arrive on different threads.
  private final class Delivery: @unchecked Sendable {
    // @unchecked: every field is touched under `lock` only.
    private let lock = NSLock()
    private var original: UNNotificationContent?
    private var handler: ((UNNotificationContent) -> Void)?
    private var fetch: Task<Void, Never>?

    func begin(original: UNNotificationContent, handler: @escaping (UNNotificationContent) -> Void)
    {
      lock.withLock {
        self.original = original
        self.handler = handler
      }
    }

    func track(_ fetch: Task<Void, Never>) {
      let delivered = lock.withLock {
        self.fetch = fetch
        return handler == nil
      }
      if delivered { fetch.cancel() }
    }

    func finish(with outcome: PushImage.Outcome) {
      guard case .attached(let file, _, _, _) = outcome else {
        deliverOriginal()
        return
      }
      guard let (original, handler) = take() else { return }
      handler(Self.content(original, withPhoto: file) ?? original)
    }

    func deliverOriginal() {
      let fetch = lock.withLock { self.fetch }
      fetch?.cancel()
      guard let (original, handler) = take() else { return }
      handler(original)
    }

    private func take() -> (UNNotificationContent, (UNNotificationContent) -> Void)? {
      lock.withLock {
        defer { (original, handler) = (nil, nil) }
        guard let original, let handler else { return nil }
        return (original, handler)
      }
    }

    /// The original content with the photo attached, or nil when the system refuses the file;
    /// the text is then delivered unchanged.
    private static func content(
      _ original: UNNotificationContent, withPhoto file: URL
    ) -> UNNotificationContent? {
      guard let content = original.mutableCopy() as? UNMutableNotificationContent,
        let attachment = try? UNNotificationAttachment(
          identifier: "push-image", url: file,
          options: [UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg"])
      else {
        // On success the system moves the file into its own store; on failure it is ours.
        try? FileManager.default.removeItem(at: file)
        return nil
      }
      content.attachments = [attachment]
      return content
    }
  }
#endif

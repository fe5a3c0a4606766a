// A stand-in for Apple's UserNotifications framework, built on Linux only (Package.swift), so
// that App/NotificationService/NotificationService.swift is compiled here against the same API
// it meets on iOS. It declares only what the extension uses, with the Swift signatures Apple's
// SDK gives (developer.apple.com/documentation/usernotifications):
//
//   class UNNotificationServiceExtension : NSObject
//     func didReceive(_ request: UNNotificationRequest,
//                     withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void)
//     func serviceExtensionTimeWillExpire()
//   class UNNotificationRequest : NSObject, NSCopying, NSSecureCoding
//     convenience init(identifier: String, content: UNNotificationContent,
//                      trigger: UNNotificationTrigger?)
//   class UNNotificationContent : NSObject, NSCopying, NSMutableCopying, NSSecureCoding
//   class UNMutableNotificationContent : UNNotificationContent
//   class UNNotificationAttachment : NSObject, NSCopying, NSSecureCoding
//     convenience init(identifier: String, url URL: URL, options: [AnyHashable : Any]? = nil) throws
//   let UNNotificationAttachmentOptionsTypeHintKey: String
//
// Like the real (unaudited Objective-C) classes, none of these types is Sendable: a stand-in
// more permissive than the SDK would let code pass here that fails on a Mac. The behaviour
// behind the signatures is the least the extension's own tests need (ADR 0038); the real
// framework's behaviour is proved on a Mac only. Never linked into the app: the Xcode project
// does not know this directory, and Package.swift declares the target under `#if os(Linux)`.

import Foundation

open class UNNotificationServiceExtension: NSObject {
  public override init() {
    super.init()
  }

  /// The system's entry point; the default delivers the content unchanged, as Apple documents.
  open func didReceive(
    _ request: UNNotificationRequest,
    withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
  ) {
    contentHandler(request.content)
  }

  open func serviceExtensionTimeWillExpire() {}
}

open class UNNotificationTrigger: NSObject {
  open var repeats: Bool { false }
}

open class UNNotificationRequest: NSObject, NSCopying {
  public let identifier: String
  public let content: UNNotificationContent
  public let trigger: UNNotificationTrigger?

  public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
    self.identifier = identifier
    // Apple's `content` is @NSCopying: the request keeps its own immutable copy.
    self.content = content.immutableCopy()
    self.trigger = trigger
    super.init()
  }

  open func copy(with zone: NSZone? = nil) -> Any { self }
}

open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying {
  // The storage both classes share; only UNMutableNotificationContent's setters write it.
  var storedTitle = ""
  var storedSubtitle = ""
  var storedBody = ""
  var storedUserInfo: [AnyHashable: Any] = [:]
  var storedAttachments: [UNNotificationAttachment] = []

  public override init() {
    super.init()
  }

  open var title: String { storedTitle }
  open var subtitle: String { storedSubtitle }
  open var body: String { storedBody }
  open var userInfo: [AnyHashable: Any] { storedUserInfo }
  open var attachments: [UNNotificationAttachment] { storedAttachments }

  open func copy(with zone: NSZone? = nil) -> Any { immutableCopy() }

  open func mutableCopy(with zone: NSZone? = nil) -> Any {
    let copy = UNMutableNotificationContent()
    copy.take(from: self)
    return copy
  }

  func immutableCopy() -> UNNotificationContent {
    let copy = UNNotificationContent()
    copy.take(from: self)
    return copy
  }

  func take(from other: UNNotificationContent) {
    storedTitle = other.storedTitle
    storedSubtitle = other.storedSubtitle
    storedBody = other.storedBody
    storedUserInfo = other.storedUserInfo
    storedAttachments = other.storedAttachments
  }
}

open class UNMutableNotificationContent: UNNotificationContent {
  open override var title: String {
    get { storedTitle }
    set { storedTitle = newValue }
  }
  open override var subtitle: String {
    get { storedSubtitle }
    set { storedSubtitle = newValue }
  }
  open override var body: String {
    get { storedBody }
    set { storedBody = newValue }
  }
  open override var userInfo: [AnyHashable: Any] {
    get { storedUserInfo }
    set { storedUserInfo = newValue }
  }
  open override var attachments: [UNNotificationAttachment] {
    get { storedAttachments }
    set { storedAttachments = newValue }
  }
}

public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"

/// The error the stand-in throws where the real initializer fails (Apple's is an NSError in the
/// UNErrorDomain, code UNErrorCodeAttachmentInvalidURL and neighbours).
public struct UNStandInAttachmentError: Error {
  public var reason: String
}

open class UNNotificationAttachment: NSObject, NSCopying {
  public let identifier: String
  public let url: URL
  public let type: String

  /// Like the real one, fails unless `URL` is a file URL to a readable file. It does not move
  /// the file into a store as iOS does.
  public init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
    guard URL.isFileURL, FileManager.default.isReadableFile(atPath: URL.path) else {
      throw UNStandInAttachmentError(reason: "not a readable file: \(URL)")
    }
    self.identifier = identifier.isEmpty ? UUID().uuidString : identifier
    self.url = URL
    self.type = options?[UNNotificationAttachmentOptionsTypeHintKey] as? String ?? "public.data"
    super.init()
  }

  open func copy(with zone: NSZone? = nil) -> Any { self }
}

import Foundation
import NotificationServiceKit

enum ExitCode {
  static let attached: Int32 = 0
  static let gaveUp: Int32 = 1
  static let usage: Int32 = 2

  static func of(_ outcome: PushImage.Outcome) -> Int32 {
    switch outcome {
    case .attached: attached
    case .gaveUp: gaveUp
    case .rejectedURL: usage
    }
  }
}

/// One line a person can read, saying what the extension would do.
enum Report {
  static func line(for outcome: PushImage.Outcome) -> String {
    switch outcome {
    case .attached(let file, let bytes, let after, let attempts):
      "attached \(file.path) (\(bytes) bytes) after \(seconds(after)), \(count(attempts))"
    case .gaveUp(let reason, let after, let attempts):
      "gave up after \(seconds(after)), \(count(attempts)): \(describe(reason))"
    case .rejectedURL(let rejection):
      "rejected image_url: \(rejection)"
    }
  }

  private static func describe(_ reason: PushImage.GiveUpReason) -> String {
    switch reason {
    case .windowClosed(let last): "no photo within the window (last answer: \(describe(last)))"
    case .gone: "410, there will be no photo"
    case .unexpectedStatus(let status): "unexpected status \(status)"
    case .wrongContentType(let type): "Content-Type \(type ?? "missing"), not image/jpeg"
    case .notJPEG: "the body is not a JPEG"
    case .tooLarge: "the body is over \(PushImage.defaultMaxBytes) bytes"
    case .cancelled: "cancelled"
    case .fileNotWritten(let message): "could not write the file: \(message)"
    }
  }

  private static func describe(_ reason: PushImage.RetryReason) -> String {
    switch reason {
    case .notFound: "404"
    case .timedOut: "timed out"
    case .networkError(let message): "network error: \(message)"
    }
  }

  private static func seconds(_ value: TimeInterval) -> String {
    String(format: "%.2f s", value)
  }

  private static func count(_ attempts: Int) -> String {
    attempts == 1 ? "1 attempt" : "\(attempts) attempts"
  }
}

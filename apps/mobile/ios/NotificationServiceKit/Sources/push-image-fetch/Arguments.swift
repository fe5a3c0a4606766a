import Foundation

/// The command line: `push-image-fetch [--ca-file PATH] [--output-dir DIR] URL`.
struct Arguments {
  static let usage = """
    usage: push-image-fetch [--ca-file PATH] [--output-dir DIR] URL

    Fetches a push photo the way the iOS Notification Service Extension does and prints what it
    would attach, or why it would show the text notification only.

      --ca-file PATH    trust this certificate authority (Android only; see README)
      --output-dir DIR  where to write the .jpg (default: the temporary directory)

    exit status: 0 attached, 1 gave up, 2 rejected URL or usage error
    """

  struct UsageError: Error {
    var message: String
  }

  var imageURL = ""
  var caFile: String?
  var outputDirectory = FileManager.default.temporaryDirectory
  var help = false

  init<Words: Collection<String>>(_ words: Words) throws(UsageError) {
    var rest = words[...]
    var url: String?
    while let word = rest.popFirst() {
      switch word {
      case "-h", "--help":
        help = true
      case "--ca-file":
        guard let value = rest.popFirst() else {
          throw UsageError(message: "--ca-file needs a path")
        }
        caFile = value
      case "--output-dir":
        guard let value = rest.popFirst() else {
          throw UsageError(message: "--output-dir needs a directory")
        }
        outputDirectory = URL(fileURLWithPath: value, isDirectory: true)
      default:
        guard !word.hasPrefix("-") else { throw UsageError(message: "unknown option \(word)") }
        guard url == nil else { throw UsageError(message: "only one URL, please") }
        url = word
      }
    }
    if help { return }
    guard let url else { throw UsageError(message: "missing URL") }
    imageURL = url
  }
}

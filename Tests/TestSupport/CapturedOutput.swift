import Foundation

/// The two files a test's child process writes its standard output and error to, named
/// uniquely in the temporary folder; read after the process ends, then removed.
struct CapturedOutput {
  let output: String
  let errors: String

  init(prefix: String) {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(prefix)-\(UUID().uuidString.prefix(8))")
    output = base.path + ".out"
    errors = base.path + ".err"
  }

  /// What the process wrote to standard output ("" when nothing).
  var outputText: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
  /// What the process wrote to standard error ("" when nothing).
  var errorText: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

  func remove() {
    try? FileManager.default.removeItem(atPath: output)
    try? FileManager.default.removeItem(atPath: errors)
  }
}

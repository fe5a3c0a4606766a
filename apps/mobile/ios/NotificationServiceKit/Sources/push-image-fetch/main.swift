// push-image-fetch URL: runs the extension's PushImage logic on a real URLSession and says what
// the extension would attach, after how long, or why it would show the text only.
// Exit status: 0 attached, 1 gave up, 2 rejected URL or usage error.

import Foundation
import NotificationServiceKit

let arguments: Arguments
do {
  arguments = try Arguments(CommandLine.arguments.dropFirst())
} catch {
  FileHandle.standardError.write(
    Data("push-image-fetch: \(error.message)\n\n\(Arguments.usage)\n".utf8))
  exit(ExitCode.usage)
}
if arguments.help {
  print(Arguments.usage)
  exit(ExitCode.attached)
}
if let caFile = arguments.caFile {
  do {
    try CertificateAuthority.trust(file: caFile)
  } catch {
    FileHandle.standardError.write(Data("push-image-fetch: \(error.message)\n".utf8))
    exit(ExitCode.usage)
  }
}

let fetcher = PushImage(
  http: URLSessionPushImageHTTP(), clock: MonotonicClock(), directory: arguments.outputDirectory)
let outcome = await fetcher.fetch(imageURL: arguments.imageURL)
print(Report.line(for: outcome))
exit(ExitCode.of(outcome))

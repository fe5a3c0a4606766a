import Foundation
import NotificationServiceKit
import Testing

@Suite("Writing the photo to a temporary file")
struct FileTests {
  @Test("The file holds exactly the bytes that came, under a .jpg name")
  func byteIdentical() async throws {
    // Every byte value, so no text or line-ending conversion could go unnoticed.
    let body =
      Data([0xFF, 0xD8, 0xFF]) + Data((0...255).map(UInt8.init)) + Data([0x0D, 0x0A])
      + Data([0xFF, 0xD9])
    let directory = try temporaryDirectory()
    let (outcome, _) = try await run(directory: directory) { _, _ in .jpeg(body) }
    guard case .attached(let file, let bytes, _, _) = outcome else {
      Issue.record("expected an attachment, got \(outcome)")
      return
    }
    #expect(try Data(contentsOf: file) == body)
    #expect(bytes == body.count)
    #expect(file.pathExtension == "jpg")
    #expect(file.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL)
  }

  @Test("Each photo gets a file of its own")
  func freshNames() throws {
    let directory = try temporaryDirectory()
    let first = try PushImage.writeTemporaryJPEG(sampleJPEG, in: directory)
    let second = try PushImage.writeTemporaryJPEG(sampleJPEG + [0xFF, 0xD9], in: directory)
    #expect(first != second)
    #expect(try Data(contentsOf: first) == sampleJPEG)
  }

  @Test("A directory that cannot be written to gives up with the reason")
  func unwritable() async throws {
    let missing = try temporaryDirectory().appendingPathComponent("missing", isDirectory: true)
    let (outcome, _) = try await run(directory: missing) { _, _ in .jpeg() }
    guard case .gaveUp(.fileNotWritten(let message), let after, let attempts) = outcome else {
      Issue.record("expected a give-up, got \(outcome)")
      return
    }
    #expect(message.contains("missing"))
    #expect(after == 0.05)
    #expect(attempts == 1)
  }
}

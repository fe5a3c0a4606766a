import Foundation
import Infrastructure
import Testing

@testable import NtfySandbox

/// The header readings of a publish, row by row, as ntfy reads them.
@Suite struct PublishCheckTests {
  @Test(arguments: [
    ("1", 1), ("min", 1), ("2", 2), ("low", 2), ("3", 3), ("default", 3), ("4", 4),
    ("high", 4), ("5", 5), ("max", 5), ("urgent", 5), ("URGENT", 5), ("u=3, i", 0),
  ])
  func prioritiesAreReadAsNtfyReadsThem(text: String, priority: Int) {
    #expect(PublishCheck.priority(text) == priority)
  }

  @Test(arguments: ["0", "6", "highest", "-1", "5.0"])
  func otherPrioritiesAreRefused(text: String) {
    #expect(PublishCheck.priority(text) == nil)
  }

  @Test func topicsAndSequenceIDsAreOneTo64OfTheNtfyAlphabet() {
    #expect(PublishCheck.isValidName("mowdeck-0123456789abcdef0123456789abcdef"))
    #expect(PublishCheck.isValidName("0f8e2f4c-1111-4222-8333-944455556666"))
    #expect(PublishCheck.isValidName("a_B-9"))
    #expect(PublishCheck.isValidName(String(repeating: "x", count: 64)))
    #expect(!PublishCheck.isValidName(String(repeating: "x", count: 65)))
    #expect(!PublishCheck.isValidName(""))
    #expect(!PublishCheck.isValidName("a.b"))
    #expect(!PublishCheck.isValidName("a%2Fb"))
  }

  @Test func encodedWordsAreDecoded() {
    #expect(EncodedWords.decode("Robbie was lifted") == "Robbie was lifted")
    #expect(EncodedWords.decode("=?UTF-8?B?TcO8bGxlcg==?=") == "Müller")
    #expect(EncodedWords.decode("=?utf-8?B?TcO8?= =?UTF-8?B?bGxlcg==?=") == "Müller")
    #expect(EncodedWords.decode("=?UTF-8?Q?M=C3=BCller_mower?=") == "Müller mower")
    #expect(EncodedWords.decode("Hi =?UTF-8?B?TcO8bGxlcg==?= there") == "Hi Müller there")
    // Not an encoded word, or not one ntfy reads: kept as sent.
    #expect(EncodedWords.decode("=?ISO-8859-1?B?TQ==?=") == "=?ISO-8859-1?B?TQ==?=")
    #expect(EncodedWords.decode("=?UTF-8?B?***?=") == "=?UTF-8?B?***?=")
  }

  @Test func anAttachmentIsNamedByItsFilenameElseItsURL() {
    #expect(
      PublishCheck.attachmentName(url: "https://a.example/x/photo.jpg?s=1", filename: "n.jpg")
        == "n.jpg")
    #expect(
      PublishCheck.attachmentName(url: "https://a.example/x/photo.jpg?s=1", filename: nil)
        == "photo.jpg")
    #expect(PublishCheck.attachmentName(url: "https://a.example", filename: "") == "attachment")
  }

  @Test func theCurrentViewReplacesEachSequenceInPlace() {
    let topics = Topics()
    func message(_ id: String, _ sequence: String?, _ text: String) -> NtfyMessage {
      NtfyMessage(
        id: id, time: 1, expires: 2, event: "message", topic: "t", message: text,
        sequenceID: sequence)
    }
    topics.keep(message("a", "s1", "first"))
    topics.keep(message("b", nil, "alone"))
    topics.keep(message("c", "s1", "first, updated"))
    topics.keep(message("d", "b", "alone, updated by its id"))
    #expect(topics.poll("t").map(\.id) == ["a", "b", "c", "d"])
    #expect(topics.view("t").map(\.message) == ["first, updated", "alone, updated by its id"])
    #expect(topics.view("other").isEmpty)
  }
}

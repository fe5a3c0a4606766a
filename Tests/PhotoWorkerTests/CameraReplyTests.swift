import Events
import Foundation
import Infrastructure
import TestSupport
import Testing

@testable import PhotoWorker

@Suite struct CameraReplyTests {
  func jpeg(size: Int) -> [UInt8] {
    [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x20, count: size - 5) + [0xFF, 0xD9]
  }

  func reply(_ data: [UInt8], type: String? = "image/jpeg") -> NATSMessage {
    NATSMessage(subject: "_INBOX.x.1", data: data, contentType: type)
  }

  func fixture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: TestServers.fixture("photos/" + name))))
  }

  @Test func aFrameOfExactly512KiBIsKeptOneByteMoreFails() {
    #expect(CameraReply.classify(reply(jpeg(size: 524_288))) == .captured(jpeg(size: 524_288)))
    guard case .failed(.tooLarge, _) = CameraReply.classify(reply(jpeg(size: 524_289))) else {
      Issue.record("524,289 bytes must be too_large")
      return
    }
  }

  @Test(arguments: ["small.jpg", "medium.jpg", "near-limit.jpg"])
  func recordedFramesAreCaptured(name: String) throws {
    let bytes = try fixture(name)
    #expect(CameraReply.classify(reply(bytes)) == .captured(bytes))
  }

  @Test(arguments: [
    ("large.jpg", PhotoFailure.tooLarge), ("truncated.jpg", .notJPEG), ("not-a-jpeg.png", .notJPEG),
  ])
  func recordedBadFramesFail(name: String, reason: PhotoFailure) throws {
    guard case .failed(let got, _) = CameraReply.classify(reply(try fixture(name))) else {
      Issue.record("\(name) must fail")
      return
    }
    #expect(got == reason)
  }

  @Test(arguments: [
    ("asleep", PhotoFailure.asleep), ("no_camera", .noCamera), ("busy", .busy),
    ("overheated", .gatewayError),
  ])
  func errorRepliesNameTheirReason(code: String, reason: PhotoFailure) {
    let data = Array("{\"error\": \"\(code)\"}".utf8)
    guard case .failed(let got, _) = CameraReply.classify(reply(data, type: "application/json"))
    else {
      Issue.record("an error reply is a failure")
      return
    }
    #expect(got == reason)
  }

  @Test(arguments: [
    [UInt8](), [0xFF, 0xD8], [0xFF, 0xD8, 0xFF, 0xD9], Array("hello".utf8),
    [0xFF, 0xD8, 0xFF, 0x00, 0x00, 0xFF, 0xD8],
  ])
  func garbageIsNotAJPEG(bytes: [UInt8]) {
    guard case .failed(.notJPEG, _) = CameraReply.classify(reply(bytes)) else {
      Issue.record("\(bytes) must be not_jpeg")
      return
    }
  }

  @Test func anUnreadableErrorReplyIsAGatewayError() {
    guard
      case .failed(.gatewayError, _) = CameraReply.classify(
        reply(Array("{oops".utf8), type: "application/json"))
    else {
      Issue.record("unreadable JSON must be gateway_error")
      return
    }
  }

  /// The detail of a failed classification; records an issue when the reply was captured.
  func failure(_ data: [UInt8], type: String?) -> (reason: PhotoFailure, detail: String?)? {
    guard case .failed(let reason, let detail) = CameraReply.classify(reply(data, type: type))
    else {
      Issue.record("\(data.prefix(40)) must fail")
      return nil
    }
    return (reason, detail)
  }

  /// What PostgreSQL's jsonb and text columns take, and the contract's limit.
  func isClean(_ detail: String?) -> Bool {
    guard let detail else { return true }
    return detail.unicodeScalars.count <= FailureDetail.maximumLength
      && !detail.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
  }

  func errorReply(_ text: [UInt8]) -> [UInt8] {
    Array(#"{"error":""#.utf8) + text + Array(#""}"#.utf8)
  }

  @Test func aNULInTheErrorTextIsRemovedFromTheDetail() throws {
    let got = try #require(failure(Array(#"{"error":"x\u0000y"}"#.utf8), type: "application/json"))
    #expect(got.reason == .gatewayError)
    #expect(got.detail == "xy")
  }

  @Test func threeKilobytesOfErrorTextAreCutTo200Characters() throws {
    let text = String(repeating: "overheated\\u0007\\t", count: 200)
    let got = try #require(failure(errorReply(Array(text.utf8)), type: "application/json"))
    #expect(got.reason == .gatewayError)
    let detail = try #require(got.detail)
    #expect(detail.unicodeScalars.count == 200)
    #expect(detail.hasPrefix("overheatedoverheated"))
    #expect(detail.hasSuffix("…"))
    #expect(isClean(detail))
  }

  @Test func invalidUTF8InTheErrorTextIsReplacedAndTheRestKept() throws {
    let bytes: [UInt8] = [0x63, 0x61, 0x66, 0xC3, 0x28, 0xFF, 0xFE, 0x21]
    let got = try #require(failure(errorReply(bytes), type: "application/json"))
    #expect(got.reason == .gatewayError)
    #expect(got.detail == "caf\u{FFFD}(\u{FFFD}\u{FFFD}!")
  }

  @Test(arguments: [
    #"["asleep"]"#, #"{"error": 5}"#, #"{"error": null}"#, #"{}"#, "42", #""asleep""#,
  ])
  func aJSONBodyOfTheWrongShapeIsAGatewayError(body: String) throws {
    let got = try #require(failure(Array(body.utf8), type: "application/json"))
    #expect(got.reason == .gatewayError)
    #expect(got.detail == "error reply of the wrong shape: " + body)
  }

  @Test func aJSONErrorLabelledAsAJPEGIsNotAJPEG() throws {
    let got = try #require(failure(Array(#"{"error":"asleep"}"#.utf8), type: "image/jpeg"))
    #expect(got.reason == .notJPEG)
    #expect(got.detail == "18 bytes, content type image/jpeg")
  }

  @Test func controlCharactersInTheContentTypeAreRemovedFromTheDetail() throws {
    let got = try #require(failure(Array("hello".utf8), type: "image/\u{7}jpeg\u{1B}[31m"))
    #expect(got.reason == .notJPEG)
    #expect(got.detail == "5 bytes, content type image/jpeg[31m")
  }

  /// One `Character` can hold any number of combining marks: the limit counts scalars.
  @Test func aGraphemeOfTenThousandScalarsIsCutToo() throws {
    let text = "a" + String(repeating: "\u{301}", count: 10_000)
    let got = try #require(failure(errorReply(Array(text.utf8)), type: "application/json"))
    #expect(got.detail?.unicodeScalars.count == 200)
  }

  /// Whatever the bytes and the label, the reply is judged, and any detail is clean.
  @Test func randomRepliesAlwaysEndCapturedOrFailedWithACleanDetail() {
    var random = SystemRandomNumberGenerator()
    let types: [String?] = [
      nil, "application/json", "image/jpeg", "text/plain", "application/json; charset=utf-8",
      "\u{0}\u{7F}", String(repeating: "x", count: 500),
    ]
    let seeds: [[UInt8]] = [
      Array(#"{"error":""#.utf8), [0x7B], [0xFF, 0xD8, 0xFF], Array("[".utf8), [],
    ]
    for _ in 0..<1000 {
      let length = Int.random(in: 0..<3000, using: &random)
      let data =
        seeds.randomElement(using: &random)!
        + (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      switch CameraReply.classify(reply(data, type: types.randomElement(using: &random)!)) {
      case .captured(let bytes): #expect(CameraReply.isCompleteJPEG(bytes))
      case .failed(_, let detail): #expect(isClean(detail), "\(String(describing: detail))")
      }
    }
  }

  @Test func aDetailLosesOnlyControlCharactersWhenShort() {
    #expect(FailureDetail.cleaned("a\u{0}b\u{1F}c\u{7F}d\u{80}é🙂\n") == "abcd\u{80}é🙂")
    let exact = String(repeating: "é", count: 200)
    #expect(FailureDetail.cleaned(exact) == exact)
    let over = exact + "x"
    #expect(FailureDetail.cleaned(over) == String(repeating: "é", count: 199) + "…")
    #expect(FailureDetail.cleaned(bytes: [0x61, 0x00, 0xC0, 0x62]) == "a\u{FFFD}b")
  }
}

import Events
import Foundation
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
}

// libFuzzer entry for the judgement of a camera's reply (fuzz/run.sh camera).
//
// Built by swiftc together with the very source files the photo worker uses:
// Sources/PhotoWorker/CameraReply.swift, FailureDetail.swift and PhotoFailure.swift, and
// from Sources/Events the NATSMessage it takes (its plain initializer; nats.c is linked for
// the other), ImageLimits, WireCoding with CameraErrorReply, and CleanText. Each input is a
// content type, a newline and the reply's bytes; an empty first line, or no newline at all,
// is a reply without the header. Besides "does not crash or trip AddressSanitizer", it
// checks what docs/interfaces.md#camera-request-and-replies says must hold for any reply:
//   - `.captured` only for a complete JPEG (FF D8 FF ... FF D9) of at most 512 KiB, and
//     with exactly the reply's bytes;
//   - otherwise `.failed`, with a detail of at most 200 characters (counted in Unicode
//     scalars, which bounds characters too) and no control character (U+0000 to U+001F,
//     U+007F).
// The time bound is libFuzzer's -timeout (run.sh passes -timeout=10). The 512 KiB
// boundary and replies longer than -max_len are checked once, at start, by
// `boundaryChecks`. The error reply is read by the toolchain's JSONDecoder, which is not
// instrumented: its inputs all go through it, but without coverage to guide them there.
import FoundationEssentials
import Glibc

/// `ImageLimits.init(configuration:)` names the workers' Configuration, which would bring
/// in libpq and the logger; the fuzz build only needs the type to exist.
public struct Configuration {
  public var imageRetentionHours = 0
  public var imageFailedRetentionSeconds = 0
  public var imageKeep = 0
}

nonisolated(unsafe) private var captured = 0  // libFuzzer runs inputs on one thread
nonisolated(unsafe) private var failed: [PhotoFailure: Int] = [:]
nonisolated(unsafe) private var boundaryFailures = 0

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
  atexit {
    let reasons = failed.sorted { $0.key.rawValue < $1.key.rawValue }
      .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
    print("camera-fuzz: captured \(captured) inputs; failed: \(reasons)")
    print("camera-fuzz: boundary checks failed: \(boundaryFailures)")
  }
  boundaryChecks()
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: size)
  var contentType: String?
  var body = Array(input)
  if let newline = input.firstIndex(of: 0x0A) {
    let line = input[..<newline]
    contentType = line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    body = Array(input[(newline + 1)...])
  }
  let result = classify(body, contentType: contentType)
  switch result {
  case .captured: captured += 1
  case .failed(let reason, _): failed[reason, default: 0] += 1
  }
  return 0
}

/// The verdict, after checking it holds what any verdict must.
@discardableResult
private func classify(_ body: [UInt8], contentType: String?) -> PhotoResult {
  let reply = NATSMessage(subject: "_INBOX.fuzz", data: body, contentType: contentType)
  let result = CameraReply.classify(reply)
  switch result {
  case .captured(let photo):
    precondition(photo == body, "captured other bytes than the reply's")
    precondition(photo.count <= 524_288, "captured \(photo.count) bytes")
    precondition(
      photo.count >= 4 && photo.starts(with: [0xFF, 0xD8, 0xFF])
        && photo.suffix(2).elementsEqual([0xFF, 0xD9]), "captured an incomplete JPEG")
  case .failed(let reason, let detail?):
    precondition(
      detail.unicodeScalars.count <= 200,
      "\(reason) detail of \(detail.unicodeScalars.count) scalars")
    precondition(
      detail.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F },
      "\(reason) detail keeps a control character: \(detail.debugDescription)")
  case .failed:
    break
  }
  return result
}

// MARK: - Boundaries past -max_len, checked once at start

private func jpeg(_ count: Int) -> [UInt8] {
  var bytes = [UInt8](repeating: 0x42, count: count)
  bytes[0] = 0xFF
  bytes[1] = 0xD8
  bytes[2] = 0xFF
  bytes[count - 2] = 0xFF
  bytes[count - 1] = 0xD9
  return bytes
}

/// What a boundary check wants: this very verdict, or a failure (for this reason, if given).
private enum Verdict {
  case exactly(PhotoResult)
  case failed(PhotoFailure?)
}

private func expect(_ name: String, _ body: [UInt8], _ contentType: String?, _ verdict: Verdict) {
  let result = classify(body, contentType: contentType)
  let good: Bool
  switch (verdict, result) {
  case (.exactly(let expected), _): good = result == expected
  case (.failed(let reason?), .failed(let actual, _)): good = actual == reason
  case (.failed(nil), .failed): good = true
  case (.failed, .captured): good = false
  }
  guard !good else { return }
  boundaryFailures += 1
  let shown: String
  switch result {
  case .captured(let bytes): shown = "captured \(bytes.count) bytes"
  case .failed(let actual, let detail): shown = "failed \(actual) \(detail ?? "nil")"
  }
  print("camera-fuzz: BOUNDARY FAILED \(name): \(shown)")
}

private func expect(_ name: String, _ body: String, _ contentType: String?, _ verdict: Verdict) {
  expect(name, Array(body.utf8), contentType, verdict)
}

private func boundaryChecks() {
  let limit = 524_288
  for type in ["image/jpeg", "IMAGE/JPEG", nil] as [String?] {
    expect(
      "512 KiB JPEG, \(type ?? "no type")", jpeg(limit), type, .exactly(.captured(jpeg(limit))))
    expect("512 KiB + 1, \(type ?? "no type")", jpeg(limit + 1), type, .failed(.tooLarge))
    expect("1 MiB, \(type ?? "no type")", jpeg(1 << 20), type, .failed(.tooLarge))
  }
  expect("smallest JPEG", jpeg(5), "image/jpeg", .exactly(.captured(jpeg(5))))
  expect("no EOI", Array(jpeg(limit).dropLast()), "image/jpeg", .failed(.notJPEG))
  expect("no SOI", Array(jpeg(limit).dropFirst()), "image/jpeg", .failed(.notJPEG))
  expect("empty", [], "image/jpeg", .failed(.notJPEG))
  expect("empty, no type", [], nil, .failed(.notJPEG))
  expect("FF D8 FF D9", [0xFF, 0xD8, 0xFF, 0xD9], "image/jpeg", .failed(.notJPEG))
  let longType = String(repeating: "image/png;", count: 10_000) + "\u{0}\u{7}"
  expect("long content type", Array("PNG".utf8), longType, .failed(.notJPEG))

  let json = "application/json"
  expect("asleep", "{\"error\": \"asleep\"}", json, .failed(.asleep))
  expect("no_camera", "{\"error\": \"no_camera\"}", json, .failed(.noCamera))
  expect("busy, no type", "{\"error\": \"busy\"}", nil, .failed(.busy))
  expect(
    "NUL in the error", Array("{\"error\": \"x\\u0000y\"}".utf8), json,
    .exactly(.failed(.gatewayError, detail: "xy")))
  let rawNUL = Array("{\"error\": \"x".utf8) + [0] + Array("y\"}".utf8)
  expect("raw NUL", rawNUL, json, .failed(.gatewayError))
  let long = "{\"error\": \"" + String(repeating: "é", count: 300_000) + "\"}"
  expect("error text of 600 KB", long, json, .failed(.gatewayError))
  let marks = "{\"error\": \"a" + String(repeating: "\u{301}", count: 50_000) + "\"}"
  expect("50,000 combining marks", marks, json, .failed(.gatewayError))
  expect("50,000 [", String(repeating: "[", count: 50_000), json, .failed(.gatewayError))
  let closed = String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)
  expect("50,000 [ closed", closed, json, .failed(.gatewayError))
  expect("50,000 {, no type", String(repeating: "{", count: 50_000), nil, .failed(.gatewayError))
  expect("wrong shape", "{\"error\": [\"asleep\"]}", json, .failed(.gatewayError))
  expect("lone surrogate", "{\"error\": \"\\ud800\"}", json, .failed(.gatewayError))
  let invalidUTF8 = Array("{\"error\":\"".utf8) + [0xC3, 0x28, 0xFF] + Array("\"}".utf8)
  expect("invalid UTF-8", invalidUTF8, json, .failed(.gatewayError))
  expect("JPEG sent as JSON", jpeg(1000), json, .failed(nil))
}

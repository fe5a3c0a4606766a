// libFuzzer entry for the parsing in front of the signature check (fuzz/run.sh).
//
// Built by swiftc together with the very source files the worker uses:
// Sources/ImageServeWorker/PushImageTarget.swift and InboxQuery.swift, and the signer from
// Sources/Events/Signing. Each input is a request target. Besides "does not crash or
// trip AddressSanitizer", it checks what must hold for any input:
//   - the parts of an accepted target are slices of it, made of URL-safe ASCII only;
//   - a target the signer accepts is exactly the URL it would have made itself (the
//     parameters perhaps swapped): no second spelling of a credential exists;
//   - the inbox query parser's limit stays within its bounds.
import Foundation

private let key = Array("fuzz-key".utf8)
private let signer = ImageURLSigner(key: key, previousKeys: [Array("fuzz-previous-key".utf8)])
private let previous = ImageURLSigner(key: Array("fuzz-previous-key".utf8))
private let now = Date(timeIntervalSince1970: 1_900_000_000)

/// Inputs the signer accepted, printed at exit: run.sh fails when none was, since then the
/// harness never got past the parser and the run proved little.
nonisolated(unsafe) private var accepted = 0  // libFuzzer runs inputs on one thread
private let reportAtExit: Void = {
  atexit { print("image-serve-fuzz: signer accepted \(accepted) inputs") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  _ = reportAtExit
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  checkPushTarget(text)
  checkInboxQuery(text)
  return 0
}

private func checkPushTarget(_ text: String) {
  guard let target = PushImageTarget(target: text) else { return }
  for part in [target.notificationID, target.expiry, target.signature] {
    precondition(!part.isEmpty && part.utf8.allSatisfy { $0 < 128 && $0 != UInt8(ascii: "%") })
    precondition(text.utf8.count >= part.utf8.count)
  }
  let verdict = signer.verify(
    notificationID: String(target.notificationID), expiry: String(target.expiry),
    signature: String(target.signature), now: now)
  let id: UUID
  switch verdict {
  case .invalid: return
  case .valid(let valid): id = valid
  case .expired(let expired): id = expired
  }
  accepted += 1
  guard let expiry = Int64(target.expiry) else { preconditionFailure("accepted a non-number") }
  let spellings = [signer, previous].flatMap { made -> [String] in
    let url = made.url(origin: "", notificationID: id, expiry: expiry)
    let signature = made.signature(notificationID: id, expiry: expiry)
    let swapped =
      ImageURLSigner.path + id.uuidString.lowercased() + "?s=\(signature)&e=\(expiry)"
    return [url, swapped]
  }
  precondition(spellings.contains(text), "accepted a spelling the signer never makes: \(text)")
}

private func checkInboxQuery(_ text: String) {
  guard let query = InboxQuery(text[...]) else { return }
  precondition((1...InboxQuery.maxLimit).contains(query.limit))
}

import Foundation
import NotificationServiceKit
import Testing

@Suite("What each answer means")
struct AnswerTests {
  private static func reply(
    _ status: Int, _ contentType: String? = "image/jpeg", _ body: Data = sampleJPEG,
    exceeded: Bool = false
  ) -> PushImageHTTPAnswer {
    .reply(
      PushImageHTTPReply(
        status: status, contentType: contentType, body: body, bodyExceededLimit: exceeded))
  }

  @Test(
    "Each answer",
    arguments: [
      (reply(200), PushImage.Verdict.attach(sampleJPEG)),
      (reply(200, "IMAGE/JPEG"), .attach(sampleJPEG)),
      (reply(200, "image/jpeg; charset=binary"), .attach(sampleJPEG)),
      (reply(200, "text/html"), .stop(.wrongContentType("text/html"))),
      (reply(200, "image/png"), .stop(.wrongContentType("image/png"))),
      (reply(200, "image/jpg"), .stop(.wrongContentType("image/jpg"))),
      (reply(200, "image/jpeg2000"), .stop(.wrongContentType("image/jpeg2000"))),
      (reply(200, nil), .stop(.wrongContentType(nil))),
      (reply(200, "image/jpeg", Data("<html></html>".utf8)), .stop(.notJPEG)),
      (reply(200, "image/jpeg", Data()), .stop(.notJPEG)),
      (reply(200, "image/jpeg", Data([0xFF, 0xD8, 0xFF, 0xD9])), .stop(.notJPEG)),
      (reply(200, "image/jpeg", sampleJPEG + [0x00]), .stop(.notJPEG)),
      (reply(200, "image/jpeg", Data(), exceeded: true), .stop(.tooLarge)),
      (reply(404, nil, Data("not yet".utf8)), .askAgain(.notFound)),
      (reply(404, "image/jpeg"), .askAgain(.notFound)),
      (reply(404, nil, Data(), exceeded: true), .askAgain(.notFound)),
      (reply(410, nil, Data()), .stop(.gone)),
      (reply(410), .stop(.gone)),
      (reply(429, nil, Data()), .stop(.unexpectedStatus(429))),
      (reply(500, nil, Data()), .stop(.unexpectedStatus(500))),
      (reply(503, nil, Data()), .stop(.unexpectedStatus(503))),
      (reply(403, nil, Data()), .stop(.unexpectedStatus(403))),
      (reply(302), .stop(.unexpectedStatus(302))),
      (reply(204, nil, Data()), .stop(.unexpectedStatus(204))),
      (reply(206), .stop(.unexpectedStatus(206))),
      (.timedOut, .askAgain(.timedOut)),
      (.networkError("offline"), .askAgain(.networkError("offline"))),
    ] as [(PushImageHTTPAnswer, PushImage.Verdict)])
  func judge(_ answer: PushImageHTTPAnswer, _ expected: PushImage.Verdict) {
    #expect(PushImage.judge(answer, maxBytes: 1024) == expected)
  }

  @Test("The size cap is inclusive")
  func sizeCap() {
    let body = Data([0xFF, 0xD8, 0xFF]) + Data(repeating: 0, count: 95) + Data([0xFF, 0xD9])
    #expect(body.count == 100)
    #expect(PushImage.judge(Self.reply(200, "image/jpeg", body), maxBytes: 100) == .attach(body))
    #expect(PushImage.judge(Self.reply(200, "image/jpeg", body), maxBytes: 99) == .stop(.tooLarge))
  }

  @Test("The default cap is 10 MiB")
  func defaultCap() {
    #expect(PushImage.defaultMaxBytes == 10_485_760)
  }
}

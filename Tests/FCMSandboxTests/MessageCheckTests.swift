import Infrastructure
import Testing

@testable import FCMSandbox

/// The message checks, without a process: what FCM accepts and what it refuses by name.
@Suite struct MessageCheckTests {
  static func field(_ body: String) -> String? {
    switch MessageCheck.check(Array(body.utf8)) {
    case .success: return nil
    case .failure(let error):
      return error.error.details.first?.fieldViolations?.first?.field
        ?? error.error.details.first?.errorCode
    }
  }

  @Test func theWorkersMessageIsValidInEitherSpellingOfItsFields() throws {
    let valid = MessageCheck.check(Array(SandboxClient.message(to: "abc:APA91b-_x").utf8))
    #expect(try valid.get().token == "abc:APA91b-_x")
    #expect(
      Self.field(
        #"{"validateOnly":true,"message":{"token":"t","android":{"collapseKey":"k","#
          + #""notification":{"channelId":"alarms","clickAction":"open","image":"https://x/i"}}}}"#)
        == nil)
  }

  @Test(arguments: [
    (#"not json"#, ""),
    (#"{"msg":{}}"#, ""),
    (#"{"validate_only":"yes","message":{"token":"t"}}"#, "validate_only"),
    (#"{"message":{"token":"t","colour":"red"}}"#, "message"),
    (#"{"message":{"topic":"news"}}"#, "message"),
    (#"{"message":{"token":"t","topic":"news"}}"#, "message"),
    (#"{"message":{"token":"t","notification":{"title":1}}}"#, "message.notification.title"),
    (#"{"message":{"token":"t","data":"x"}}"#, "message.data"),
    (#"{"message":{"token":"t","data":{"a":"1","b":true}}}"#, "message.data[1].value"),
    (#"{"message":{"token":"t","data":{"from":"me"}}}"#, "message.data"),
    (#"{"message":{"token":"t","data":{"google.x":"1"}}}"#, "message.data"),
    (#"{"message":{"token":"t","android":{"priority":"high"}}}"#, "message.android.priority"),
    (#"{"message":{"token":"t","android":{"ttl":1800}}}"#, "message.android.ttl"),
    (#"{"message":{"token":"t","android":{"ttl":"2419201s"}}}"#, "message.android.ttl"),
    (#"{"message":{"token":"t","android":{"ttl":"-1s"}}}"#, "message.android.ttl"),
    (
      #"{"message":{"token":"t","android":{"notification":{"tag":7}}}}"#,
      "message.android.notification.tag"
    ),
    (
      #"{"message":{"token":"t","android":{"notification":{"colour":"red"}}}}"#,
      "message.android.notification"
    ),
    (#"{"message":{"token":""}}"#, "INVALID_ARGUMENT"),
    (#"{"message":{"token":"a b"}}"#, "INVALID_ARGUMENT"),
    (#"{"message":{"token":7}}"#, "INVALID_ARGUMENT"),
  ])
  func aMalformedMessageNamesItsField(body: String, field: String) {
    #expect(Self.field(body) == field, "\(body)")
  }

  @Test func dataOverFourKilobytesIsTooBig() {
    let value = String(repeating: "x", count: 4095)
    #expect(Self.field(#"{"message":{"token":"t","data":{"k":"\#(value)"}}}"#) == nil)
    #expect(Self.field(#"{"message":{"token":"t","data":{"kk":"\#(value)"}}}"#) == "message.data")
  }

  @Test func durationsAreProtobufsJSONForm() {
    for valid in ["0s", "1800s", "3.5s", "0.000000001s", "2419200s"] {
      #expect(MessageCheck.isTTL(.string(valid)), "\(valid)")
    }
    for invalid in ["1800", "s", "1.s", ".5s", "1.0000000001s", "2419200.5s", "1e3s", "30m"] {
      #expect(!MessageCheck.isTTL(.string(invalid)), "\(invalid)")
    }
    #expect(MessageCheck.snakeCase("clickAction") == "click_action")
    #expect(MessageCheck.snakeCase("click_action") == "click_action")
  }
}

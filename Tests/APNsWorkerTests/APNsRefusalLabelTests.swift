import Testing

@testable import APNsWorker

/// `mowdeck_apns_refusals_total{reason}`: Apple's documented reasons as they are, anything
/// else folded, so that what the far end writes cannot grow the label's values.
@Suite struct APNsRefusalLabelTests {
  func body(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test func applesReasonsAreTheirOwnLabel() {
    for reason in [
      "InvalidProviderToken", "ExpiredProviderToken", "BadDeviceToken", "Unregistered",
    ] {
      #expect(APNsRefusal.metricLabel(of: body(#"{"reason":"\#(reason)"}"#)) == reason)
    }
  }

  @Test func anyOtherTextIsOtherAndNoReasonIsNone() {
    #expect(APNsRefusal.metricLabel(of: body(#"{"reason":"SomethingNew"}"#)) == "other")
    #expect(APNsRefusal.metricLabel(of: body(#"{"reason":"BadDeviceToken\n"}"#)) == "other")
    #expect(APNsRefusal.metricLabel(of: body("<html>bad gateway</html>")) == "none")
    #expect(APNsRefusal.metricLabel(of: body("{}")) == "none")
    #expect(APNsRefusal.metricLabel(of: []) == "none")
  }
}

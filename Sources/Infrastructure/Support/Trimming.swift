/// Trimming for text read from the environment, PostgreSQL and HTTP headers.
///
/// Why here: the workers import FoundationEssentials, not Foundation (ADR 0021), and
/// `trimmingCharacters(in:)` lives in Foundation.
extension StringProtocol {
  /// The text without leading and trailing whitespace, newlines included.
  public func trimmingWhitespace() -> String {
    trimming { $0.isWhitespace }
  }

  /// The text without the leading and trailing characters `isTrimmed` accepts.
  public func trimming(_ isTrimmed: (Character) -> Bool) -> String {
    guard let first = firstIndex(where: { !isTrimmed($0) }),
      let last = lastIndex(where: { !isTrimmed($0) })
    else { return "" }
    return String(self[first...last])
  }
}

/// A setting that is missing or malformed. The description is the one line an operator
/// sees before the worker exits with status 2; it names the variable.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
  public let variable: String
  public let problem: String

  public init(variable: String, problem: String) {
    self.variable = variable
    self.problem = problem
  }

  /// Redacted: a malformed URL setting quotes its value, which may hold a password.
  public var description: String {
    Redaction.redact("configuration error: \(variable) \(problem)")
  }
}

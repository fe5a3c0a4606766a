/// One metric family as `/metrics` introduces it: its `# TYPE` and `# HELP` lines. Each
/// worker hands its families to its registry when it creates it, so that every family it
/// can ever export is shown, described, from the first scrape (a header alone until it
/// counts): what an alert rule or a dashboard names can be checked against a running worker.
public struct MetricFamily: Sendable, Hashable {
  public enum Kind: String, Sendable {
    case counter, gauge, histogram
  }

  public let name: String
  public let kind: Kind
  public let help: String

  public init(_ name: String, _ kind: Kind, _ help: String) {
    self.name = name
    self.kind = kind
    self.help = help
  }
}

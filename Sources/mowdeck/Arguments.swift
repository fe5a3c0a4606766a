/// A misuse of the command line: printed with the usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
  let message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}

/// What a command accepts after its words: the options that take a value, the flags that
/// take none, and the names of its positional arguments, in the order the usage shows them.
/// Anything else is refused, so a misspelt option cannot quietly fall back to a default.
struct Grammar {
  var options: [String] = []
  var flags: [String] = []
  var positional: [String] = []

  /// `--user, --token, ..., --help`: what the refusal of an unknown option lists.
  var knownNames: [String] { (options + flags + ["help"]).map { "--" + $0 } }
}

/// The words after the subcommand: positional arguments and `--name value` options,
/// checked against the command's grammar.
struct Arguments {
  private(set) var positional: [String] = []
  private var options: [String: String] = [:]
  private var flags: Set<String> = []
  let wantsHelp: Bool

  init(_ words: [String], grammar: Grammar) throws {
    var help = false
    var index = 0
    while index < words.count {
      let word = words[index]
      index += 1
      if word == "--help" || word == "-h" {
        help = true
        continue
      }
      guard word.hasPrefix("-"), word != "-" else {
        guard positional.count < grammar.positional.count else {
          throw UsageError(Self.unexpected(word, grammar))
        }
        positional.append(word)
        continue
      }
      guard word.hasPrefix("--") else { throw UsageError(Self.unknown(word, grammar)) }
      var name = String(word.dropFirst(2))
      var value: String?
      if let equals = name.firstIndex(of: "=") {
        value = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if grammar.flags.contains(name) {
        guard value == nil else { throw UsageError("--\(name) takes no value") }
        flags.insert(name)
        continue
      }
      guard grammar.options.contains(name) else {
        throw UsageError(Self.unknown("--" + name, grammar))
      }
      guard options[name] == nil else { throw UsageError("--\(name) is given twice") }
      if value == nil {
        // A value that looks like an option is the next option: `--user --all` lacks the user.
        guard index < words.count, !words[index].hasPrefix("--") else {
          throw UsageError("--\(name) needs a value")
        }
        value = words[index]
        index += 1
      }
      options[name] = value
    }
    wantsHelp = help
  }

  func option(_ name: String) -> String? { options[name] }

  func required(_ name: String) throws -> String {
    guard let value = options[name], !value.isEmpty else {
      throw UsageError("--\(name) is required")
    }
    return value
  }

  func flag(_ name: String) -> Bool { flags.contains(name) }

  func integer(_ name: String, default fallback: Int) throws -> Int {
    guard let text = options[name] else { return fallback }
    guard let value = Int(text), value > 0 else {
      throw UsageError("--\(name) must be a positive whole number")
    }
    return value
  }

  func positional(_ index: Int, _ what: String) throws -> String {
    guard index < positional.count else { throw UsageError("missing \(what)") }
    return positional[index]
  }

  /// "unknown option --enviroment (did you mean --environment? known: --user, ...)".
  private static func unknown(_ word: String, _ grammar: Grammar) -> String {
    let known = grammar.knownNames
    let guess = NearMiss.closest(to: word, among: known).map { "did you mean \($0)? " }
    return "unknown option \(word) (\(guess ?? "")known: \(known.joined(separator: ", ")))"
  }

  /// "unexpected argument extra (takes ALARM_ID only)".
  private static func unexpected(_ word: String, _ grammar: Grammar) -> String {
    let takes =
      grammar.positional.isEmpty
      ? "takes no arguments" : "takes \(grammar.positional.joined(separator: " ")) only"
    return "unexpected argument \(word) (\(takes))"
  }
}

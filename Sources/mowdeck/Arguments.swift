/// A misuse of the command line: printed with the usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
  let message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}

/// The words after the subcommand: positional arguments and `--name value` options.
struct Arguments {
  private(set) var positional: [String] = []
  private var options: [String: String] = [:]
  private var flags: Set<String> = []
  let wantsHelp: Bool

  /// - Parameter flagNames: options that take no value.
  init(_ words: [String], flagNames: Set<String> = []) throws {
    var help = false
    var index = 0
    while index < words.count {
      let word = words[index]
      if word == "--help" || word == "-h" {
        help = true
      } else if word.hasPrefix("--") {
        let name = String(word.dropFirst(2))
        if let equals = name.firstIndex(of: "=") {
          options[String(name[..<equals])] = String(name[name.index(after: equals)...])
        } else if flagNames.contains(name) {
          flags.insert(name)
        } else {
          guard index + 1 < words.count else { throw UsageError("--\(name) needs a value") }
          options[name] = words[index + 1]
          index += 1
        }
      } else {
        positional.append(word)
      }
      index += 1
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
}

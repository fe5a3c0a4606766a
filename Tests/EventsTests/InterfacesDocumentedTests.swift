import Foundation
import TestSupport
import Testing

/// `docs/interfaces.md` describes every outside interface as the code implements it, and
/// `docs/openapi.yaml` the serving process's API. These tests read every Swift file under
/// `Sources/`, wherever it sits, and fail, naming the item and the file it was found in,
/// when the code has an environment variable, event type, HTTP route, NATS subject or
/// metric that the documents do not mention.
@Suite struct InterfacesDocumentedTests {
  @Test func everyEnvironmentVariableIsDocumented() throws {
    let variables = found(#/"(MOWDECK_[A-Z0-9_]+)"/#, in: try SourceFile.all())
    try #require(!variables.isEmpty, "no MOWDECK_ variable found in Sources/")
    let document = try Document("docs/interfaces.md")
    for variable in variables {
      #expect(document.mentions(variable.item), "\(variable) is missing from \(document.path)")
    }
  }

  @Test func everyEventTypeIsDocumented() throws {
    let file = try #require(
      try SourceFile.all().first { $0.path.hasSuffix("/EventType.swift") },
      "no EventType.swift under Sources/")
    let types = found(#/case\s+\w+\s*=\s*"([^"]+)"/#, in: [file])
    try #require(!types.isEmpty, "no `case name = \"type\"` line in \(file.path)")
    let document = try Document("docs/interfaces.md")
    for type in types {
      #expect(document.mentions(type.item), "event type \(type) is missing from \(document.path)")
    }
  }

  @Test func everyRouteIsDocumented() throws {
    let (routes, unresolved) = registeredRoutes(in: try SourceFile.all())
    #expect(unresolved.isEmpty, "route registrations whose path was not found: \(unresolved)")
    try #require(!routes.isEmpty, "no HTTP route registration found in Sources/")
    let document = try Document("docs/interfaces.md")
    let openAPI = try Document("docs/openapi.yaml")
    for route in routes {
      #expect(document.mentions(route.item), "route \(route) is missing from \(document.path)")
      #expect(openAPI.hasPathKey(route.item), "route \(route) is missing from \(openAPI.path)")
    }
  }

  /// The literal parts of the names built in Subjects.swift: `notifications.alarms.`,
  /// `.photo`, `mowdeck.wake.photos`, the stream `MOWDECK_ALARMS`, the consumer `fanout`.
  @Test func everySubjectIsDocumented() throws {
    let file = try #require(
      try SourceFile.all().first { $0.path.hasSuffix("/Subjects.swift") },
      "no Subjects.swift under Sources/")
    let parts = found(#/"((?:[^"\\\n]|\\.)*)"/#, in: [file]).flatMap { literal in
      literal.item.split(separator: #/\\\([^)]*\)/#).map { Found(String($0), in: literal.file) }
    }.filter { $0.item.filter(\.isLetter).count >= 2 }
    try #require(!parts.isEmpty, "no subject found in \(file.path)")
    let document = try Document("docs/interfaces.md")
    for part in parts {
      #expect(document.mentions(part.item), "subject part \(part) is missing from \(document.path)")
    }
  }

  /// Metric names as literals; an interpolated part is documented as `<name>`:
  /// `"mowdeck_\(stage)_waiting"` as `mowdeck_<stage>_waiting`. A literal ending in an
  /// interpolation (a prepared statement's `mowdeck_\(n)`) names no metric.
  @Test func everyMetricIsDocumented() throws {
    let metrics = found(
      #/"(mowdeck_(?:[a-z0-9_]|\\\([A-Za-z]+\))*[a-z0-9_])"/#, in: try SourceFile.all())
    try #require(!metrics.isEmpty, "no mowdeck_ metric found in Sources/")
    let document = try Document("docs/interfaces.md")
    for metric in metrics {
      let name = Found(metric.item.replacing(#/\\\((\w+)\)/#) { "<\($0.1)>" }, in: metric.file)
      #expect(document.mentions(name.item), "metric \(name) is missing from \(document.path)")
    }
  }
}

/// An item found in the code, and the first file it was found in.
private struct Found: CustomStringConvertible {
  let item: String
  let file: String

  init(_ item: String, in file: String) {
    self.item = item
    self.file = file
  }

  var description: String { "`\(item)` (\(file))" }
}

/// One Swift file under `Sources/`, without its whole-line comments: what the code does,
/// not what its comments say.
private struct SourceFile {
  let path: String
  let code: String

  static func all() throws -> [SourceFile] {
    let root = TestServers.repositoryPath("Sources")
    let paths = try FileManager.default.subpathsOfDirectory(atPath: root)
      .filter { $0.hasSuffix(".swift") }.sorted()
    return try paths.map { path in
      let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
      let code = text.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.drop(while: \.isWhitespace).hasPrefix("//") }
      return SourceFile(path: "Sources/" + path, code: code.joined(separator: "\n"))
    }
  }
}

/// The first capture of every match of `regex` in `files`, each item once.
private func found(_ regex: Regex<(Substring, Substring)>, in files: [SourceFile]) -> [Found] {
  var seen = Set<String>()
  return files.flatMap { file in
    file.code.matches(of: regex).map { Found(String($0.1), in: file.path) }
  }.filter { seen.insert($0.item).inserted }
}

/// The path patterns of the HTTP routes: literal ones passed to `get`, `post`, `put`,
/// `patch`, `delete` or `add("METHOD", ...)`, and constants passed to a router's such method,
/// resolved through their `let name = "/..."` declaration. A constant whose declaration is
/// not found comes back in `unresolved`, so that a new way of naming routes cannot hide one.
private func registeredRoutes(in files: [SourceFile]) -> (routes: [Found], unresolved: [Found]) {
  let literals = found(
    #/\b(?:get|post|put|patch|delete|add)\(\s*(?:"[A-Z]+"\s*,\s*)?"(/[^"]*)"/#, in: files)
  let names = found(
    #/[rR]outer\.(?:get|post|put|patch|delete|add)\(\s*(?:"[A-Z]+"\s*,\s*)?([A-Za-z_][\w.]*)/#,
    in: files)
  var constants: [String: [Found]] = [:]
  for file in files {
    for match in file.code.matches(of: #/let\s+(\w+)\s*=\s*"(/[^"]*)"/#) {
      constants[String(match.1), default: []].append(Found(String(match.2), in: file.path))
    }
  }
  // `PushImageRoute.pattern` and `Self.pattern` are declared as `let pattern = ...`.
  let declared = { (name: Found) in constants[String(name.item.split(separator: ".").last ?? "")] }
  var seen = Set<String>()
  let routes = literals + names.flatMap { declared($0) ?? [] }
  return (routes.filter { seen.insert($0.item).inserted }, names.filter { declared($0) == nil })
}

/// A document of the repository, and whether it names an item as a whole word: not as part
/// of a longer name, as `MOWDECK_ALARMS` in `MOWDECK_ALARMS_T1` or `/inbox` in
/// `/api/v1/notifications/inbox`. Described by its path alone, so that a failed
/// expectation does not print the whole text.
private struct Document: CustomStringConvertible {
  let path: String
  let text: String

  var description: String { path }

  init(_ path: String) throws {
    self.path = path
    text = try String(contentsOfFile: TestServers.repositoryPath(path), encoding: .utf8)
  }

  func mentions(_ name: String) -> Bool {
    var rest = text[...]
    while let range = rest.firstRange(of: name) {
      let before = text[..<range.lowerBound].last ?? " "
      let after = text[range.upperBound...].first ?? " "
      if !Self.continuesName(before), !Self.continuesName(after) { return true }
      rest = text[text.index(after: range.lowerBound)...]
    }
    return false
  }

  /// Whether a line of this YAML document is the key `path:`, as OpenAPI lists its paths.
  func hasPathKey(_ path: String) -> Bool {
    text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == path + ":" }
  }

  private static func continuesName(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || "_./-".contains(character)
  }
}

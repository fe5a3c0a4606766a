import Events
import Foundation
import Infrastructure
import Testing

@testable import APNsSandbox

@Suite("Behaviour table")
struct BehaviourTableTests {
  let tokenA = String(repeating: "a", count: 64)
  let tokenB = String(repeating: "b", count: 64)
  let logger = Logger(component: "test", minimumLevel: .error)

  private func specs(_ table: BehaviourTable, _ token: String, _ count: Int) -> [String?] {
    (0..<count).map { _ in table.take(for: token)?.spec }
  }

  @Test func countedBehaviourEndsAfterItsUses() throws {
    let table = try BehaviourTable(
      flags: [tokenA: try Behaviour(parsing: "500x2")], filePath: nil, logger: logger)
    #expect(specs(table, tokenA, 4) == ["500x2", "500x2", nil, nil])
    #expect(table.take(for: tokenB) == nil)
  }

  @Test func tokensAreMatchedWithoutRegardToCase() throws {
    let table = try BehaviourTable(
      flags: [tokenA: try Behaviour(parsing: "429")], filePath: nil, logger: logger)
    #expect(table.take(for: tokenA.uppercased())?.spec == "429")
  }

  @Test func wildcardAppliesToTokensWithoutTheirOwnEntry() throws {
    let table = try BehaviourTable(
      flags: ["*": try Behaviour(parsing: "503"), tokenA: try Behaviour(parsing: "200")],
      filePath: nil, logger: logger)
    #expect(table.take(for: tokenA)?.spec == "200")
    #expect(table.take(for: tokenB)?.spec == "503")
  }

  @Test func fileWinsOverFlagsAndIsReadAgainWhenItChanges() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("behaviours-\(UUID().uuidString).json").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data(#"{"\#(tokenA)": "500x1"}"#.utf8).write(to: URL(fileURLWithPath: path))
    let table = try BehaviourTable(
      flags: [tokenA: try Behaviour(parsing: "429"), tokenB: try Behaviour(parsing: "400")],
      filePath: path, logger: logger)
    // Once used up, a counted entry means the normal answer, not the next entry down.
    #expect(specs(table, tokenA, 2) == ["500x1", nil])

    // Writing the file again arms its counted entries again.
    try Data(#"{"\#(tokenA)": "500x1", "*": "drop"}"#.utf8).write(
      to: URL(fileURLWithPath: path), options: .atomic)
    #expect(specs(table, tokenA, 2) == ["500x1", nil])
    // A token's own flag still beats the file's `*`.
    #expect(table.take(for: tokenB)?.spec == "400")
    #expect(table.take(for: String(repeating: "c", count: 64))?.spec == "drop")

    // A broken file keeps the last good table.
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    #expect(table.take(for: String(repeating: "c", count: 64))?.spec == "drop")

    // No file, no file behaviours.
    try FileManager.default.removeItem(atPath: path)
    #expect(table.take(for: String(repeating: "c", count: 64)) == nil)
    #expect(table.take(for: tokenA)?.spec == "429")
  }

  @Test func aBadFileAtStartIsAnError() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("behaviours-\(UUID().uuidString).json").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    for content in [
      #"["500"]"#, #"{"\#(tokenA)": 500}"#, #"{"abc": "500"}"#, #"{"\#(tokenA)": "5OO"}"#,
    ] {
      try Data(content.utf8).write(to: URL(fileURLWithPath: path))
      #expect(throws: SandboxError.self, "\(content)") {
        try BehaviourTable(flags: [:], filePath: path, logger: logger)
      }
    }
  }
}

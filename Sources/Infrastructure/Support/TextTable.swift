/// A plain fixed-width table for command and benchmark output.
public struct TextTable: Sendable {
  public let columns: [String]
  private var rows: [[String]] = []

  public init(_ columns: [String]) { self.columns = columns }
  public init(_ columns: String...) { self.columns = columns }

  public mutating func add(_ cells: [String]) { rows.append(cells) }
  public mutating func add(_ cells: String...) { rows.append(cells) }

  public func render() -> String {
    let widths = columns.indices.map { index in
      ([columns[index]] + rows.map { index < $0.count ? $0[index] : "" }).map(\.count).max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { index, cell in
        cell + String(repeating: " ", count: max(0, widths[index] - cell.count))
      }
      .joined(separator: "  ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
    return ([line(columns), rule] + rows.map(line)).joined(separator: "\n")
  }
}

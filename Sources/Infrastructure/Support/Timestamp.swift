import FoundationEssentials

/// RFC 3339 timestamps, both as alarms carry them (`2026-11-29T10:15:00Z`) and as PostgreSQL
/// prints `timestamptz` in UTC (`2026-11-29 10:15:00.123456+00`). Hand-written because it runs
/// for every alarm and every row, and because it must reject what is not a real instant.
public enum Timestamp {
  /// `2026-11-29T10:15:00.123456Z`, microsecond precision like PostgreSQL.
  public static func format(_ date: Date) -> String {
    let totalMicros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    var seconds = totalMicros / 1_000_000
    var micros = totalMicros % 1_000_000
    if micros < 0 {
      micros += 1_000_000
      seconds -= 1
    }
    var days = seconds / 86_400
    var secondOfDay = seconds % 86_400
    if secondOfDay < 0 {
      secondOfDay += 86_400
      days -= 1
    }
    let (year, month, day) = civil(fromDays: days)
    func pad(_ value: Int64, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    let time =
      "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2))"
    let fraction = micros == 0 ? "" : "." + pad(micros, 6)
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(time)\(fraction)Z"
  }

  /// Parses `YYYY-MM-DD(T| )HH:MM:SS[.fraction](Z|±HH[:MM])`; nil for anything else.
  public static func parse(_ text: String) -> Date? {
    let c = Array(text.utf8)
    var i = 0
    func number(_ width: Int) -> Int64? {
      guard i + width <= c.count else { return nil }
      var value: Int64 = 0
      for k in i..<(i + width) {
        guard c[k] >= 48, c[k] <= 57 else { return nil }
        value = value * 10 + Int64(c[k] - 48)
      }
      i += width
      return value
    }
    func expect(_ characters: String) -> Bool {
      guard i < c.count, characters.utf8.contains(c[i]) else { return false }
      i += 1
      return true
    }
    guard let year = number(4), expect("-"), let month = number(2), expect("-"),
      let day = number(2), expect("Tt "), let hour = number(2), expect(":"),
      let minute = number(2), expect(":"), let second = number(2)
    else { return nil }
    guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
      hour < 24, minute < 60, second < 60
    else { return nil }
    var fraction = 0.0
    if i < c.count, c[i] == UInt8(ascii: ".") {
      i += 1
      var scale = 0.1
      let start = i
      while i < c.count, c[i] >= 48, c[i] <= 57 {
        fraction += Double(c[i] - 48) * scale
        scale /= 10
        i += 1
      }
      guard i > start else { return nil }
    }
    var offset: Int64 = 0
    if expect("Zz") {
      // UTC
    } else if i < c.count, c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-") {
      let sign: Int64 = c[i] == UInt8(ascii: "-") ? -1 : 1
      i += 1
      guard let hours = number(2), hours < 24 else { return nil }
      var minutes: Int64 = 0
      if i < c.count {
        _ = expect(":")
        guard let m = number(2), m < 60 else { return nil }
        minutes = m
      }
      offset = sign * (hours * 3600 + minutes * 60)
    } else {
      return nil
    }
    guard i == c.count else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
    return Date(timeIntervalSince1970: Double(seconds) + fraction)
  }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  // Howard Hinnant's days-from-civil and its inverse.
  private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
  }
}

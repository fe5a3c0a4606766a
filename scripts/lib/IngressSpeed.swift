// Parses per second of the fan-out's ingress check, `IngressAlarm.parse`, over the recorded
// stream (scripts/ingress-speed.sh builds it with the worker's own source files).
//   ingress-speed FIXTURE.jsonl [ROUNDS]
import FoundationEssentials

@main enum IngressSpeed {
  static func main() throws {
    let arguments = CommandLine.arguments
    let lines = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
      .split(separator: UInt8(ascii: "\n"))
    let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 20 : 20
    let messages: [(subject: String, payload: [UInt8])] = lines.compactMap { line in
      guard let record = JSON.object(from: Array(line)), let subject = record["subject"] as? String,
        let payload = record["payload"] as? String
      else { return nil }
      return (subject, Array(payload.utf8))
    }
    let subjects = Subjects()
    var verdicts: [String: Int] = [:]
    // One round to warm up and to count the verdicts, then the timed ones.
    for message in messages {
      let verdict =
        switch IngressAlarm.parse(
          subject: message.subject, subjects: subjects, payload: message.payload)
        {
        case .success: "accepted"
        case .failure(let rejection): rejection.rawValue
        }
      verdicts[verdict, default: 0] += 1
    }
    var perRound: [Duration] = []
    var accepted = 0
    let clock = ContinuousClock()
    for _ in 0..<rounds {
      let start = clock.now
      for message in messages {
        if case .success = IngressAlarm.parse(
          subject: message.subject, subjects: subjects, payload: message.payload)
        {
          accepted += 1
        }
      }
      perRound.append(clock.now - start)
    }
    let bytes = messages.reduce(0) { $0 + $1.payload.count }
    print(
      "ingress-speed: \(messages.count) payloads (\(bytes / messages.count) bytes on average), "
        + verdicts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        .joined(separator: ", ") + " (\(accepted / rounds) accepted a round)")
    // The fastest round is the one least disturbed by other work on the machine.
    let sorted = perRound.sorted()
    for (name, round) in [("fastest", sorted[0]), ("median", sorted[rounds / 2])] {
      let seconds = Double(round.components.seconds) + Double(round.components.attoseconds) / 1e18
      print(
        "ingress-speed: \(name) of \(rounds) rounds: "
          + "\(Int((Double(messages.count) / seconds).rounded())) parses/s, "
          + "\(Int((seconds / Double(messages.count) * 1e9).rounded())) ns per parse")
    }
  }
}

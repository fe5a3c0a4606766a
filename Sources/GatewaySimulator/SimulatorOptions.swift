import Foundation

/// The simulator's settings, from its command line.
struct SimulatorOptions: Sendable {
  var framesDirectory = "deploy/frames"
  /// Latency of every answer: uniformly between these, in milliseconds.
  var latencyMs: ClosedRange<Int> = 200...800
  /// Shares of requests answered otherwise than with a photo, in [0, 1].
  var shares: [(Behaviour, Double)] = []
  /// Fixed behaviour (and optional latency) for given mowers.
  var perMower: [String: (behaviour: Behaviour, latencyMs: Int?)] = [:]
  var natsURL = "nats://127.0.0.1:4222"
  var subjectPrefix = ""
  var seed: UInt64?

  static let usage = """
    usage: GatewaySimulator [--frames DIR] [--latency-ms MS | MIN-MAX]
                            [--asleep P] [--no-camera P] [--busy P] [--error P] [--garbage P]
                            [--oversized P] [--truncated P] [--silent P]
                            [--mower ID=BEHAVIOUR[@LATENCY_MS]]... [--seed N]
      BEHAVIOUR: photo, photo:SIZE, asleep, no_camera, busy, error, garbage, oversized,
                 truncated, silent, twice (a frame, then an error, to one request), or a
                 malformed reply: nul_error, long_error, invalid_utf8_error, json_array,
                 numeric_error, json_as_jpeg
      NATS from MOWDECK_NATS_URL and MOWDECK_NATS_SUBJECT_PREFIX.
    """

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  static func parse(_ arguments: [String], environment: [String: String]) throws -> SimulatorOptions
  {
    var options = SimulatorOptions()
    options.natsURL = environment["MOWDECK_NATS_URL"] ?? options.natsURL
    options.subjectPrefix = environment["MOWDECK_NATS_SUBJECT_PREFIX"] ?? ""
    var index = 0
    func value() throws -> String {
      index += 1
      guard index < arguments.count else {
        throw Invalid(description: "\(arguments[index - 1]) needs a value")
      }
      return arguments[index]
    }
    let shareFlags: [String: Behaviour] = [
      "--asleep": .asleep, "--no-camera": .noCamera, "--busy": .busy, "--error": .otherError,
      "--garbage": .garbage, "--oversized": .oversized, "--truncated": .truncated,
      "--silent": .silent,
    ]
    while index < arguments.count {
      let flag = arguments[index]
      if let behaviour = shareFlags[flag] {
        let text = try value()
        guard let share = Double(text), (0...1).contains(share) else {
          throw Invalid(description: "\(flag) takes a share between 0 and 1, got \(text)")
        }
        options.shares.append((behaviour, share))
      } else {
        switch flag {
        case "--frames": options.framesDirectory = try value()
        case "--latency-ms": options.latencyMs = try parseRange(try value())
        case "--seed":
          guard let seed = UInt64(try value()) else {
            throw Invalid(description: "--seed takes a number")
          }
          options.seed = seed
        case "--mower":
          let text = try value()
          guard let equals = text.firstIndex(of: "=") else {
            throw Invalid(description: "--mower takes ID=BEHAVIOUR[@LATENCY_MS], got \(text)")
          }
          let id = String(text[..<equals])
          let spec = text[text.index(after: equals)...].split(separator: "@", maxSplits: 1)
          guard let name = spec.first, let behaviour = Behaviour(String(name)) else {
            throw Invalid(description: "unknown behaviour in --mower \(text)")
          }
          let latency = spec.count == 2 ? Int(spec[1]) : nil
          if spec.count == 2, latency == nil {
            throw Invalid(description: "bad latency in --mower \(text)")
          }
          options.perMower[id] = (behaviour, latency)
        case "--help", "-h": throw Invalid(description: usage)
        default: throw Invalid(description: "unknown option \(flag)")
        }
      }
      index += 1
    }
    guard options.shares.map(\.1).reduce(0, +) <= 1 else {
      throw Invalid(description: "the shares add up to more than 1")
    }
    return options
  }

  private static func parseRange(_ text: String) throws -> ClosedRange<Int> {
    let parts = text.split(separator: "-").compactMap { Int($0) }
    switch parts.count {
    case 1 where parts[0] >= 0: return parts[0]...parts[0]
    case 2 where 0 <= parts[0] && parts[0] <= parts[1]: return parts[0]...parts[1]
    default: throw Invalid(description: "--latency-ms takes MS or MIN-MAX, got \(text)")
    }
  }
}

import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The phone's Notification Service Extension as docs/adr/0010 describes it: on a
/// push with an `image_url`, ask at once and then once a second for at most 14 s; stop on
/// 200 (attached) and on any answer but 404; each request waits at most 6 s. Plain HTTP to
/// the serving process on loopback: TLS is the owner's proxy, not what this measures.
actor PhoneEmulator {
  let origin: String
  /// The serving replicas, asked in turn as a load balancer would.
  let local: [String]
  private let session: URLSession
  private var followed = 0
  /// Notification id to the time of its 200.
  private var attached: [String: Date] = [:]
  private var gaveUp = 0
  private var tasks: [Task<Void, Never>] = []

  init(origin: String, local: [String]) {
    self.origin = origin
    self.local = local
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 6
    session = URLSession(configuration: configuration)
  }

  func follow(_ imageURL: String) {
    let base = local[followed % local.count]
    guard imageURL.hasPrefix(origin), let url = URL(string: base + imageURL.dropFirst(origin.count))
    else { return }
    followed += 1
    let notificationID = url.pathComponents.last ?? ""
    tasks.append(
      Task {
        let start = Date()
        while Date().timeIntervalSince(start) < 14 {
          let status = (try? await session.data(from: url)).flatMap {
            ($0.1 as? HTTPURLResponse)?.statusCode
          }
          if status == 200 {
            record(notificationID, at: Date())
            return
          }
          if let status, status != 404 { break }
          try? await Task.sleep(for: .seconds(1))
        }
        recordGaveUp()
      })
  }

  private func record(_ notificationID: String, at time: Date) { attached[notificationID] = time }
  private func recordGaveUp() { gaveUp += 1 }

  /// Waits for every phone still asking.
  func finish() async {
    for task in tasks { await task.value }
    tasks.removeAll()
  }

  var summary: (followed: Int, attached: Int, gaveUp: Int) { (followed, attached.count, gaveUp) }

  /// For each attached photo, the time from its storing to the phone's successful fetch.
  /// - Parameter stored: when each notification's photo was stored.
  func storedToFetch(stored: [String: Date]) -> Samples {
    var samples = Samples()
    for (notificationID, fetched) in attached {
      if let storedAt = stored[notificationID] {
        samples.add(fetched.timeIntervalSince(storedAt))
      }
    }
    return samples
  }
}

import FoundationEssentials
import Glibc
import Infrastructure

/// Every setting of docs/interfaces.md#configuration, read once at start from the environment.
/// Workers receive this value; nothing reads the environment later.
public struct Configuration: Sendable {
  public var databaseURL: String
  public var natsURL: String
  /// Copies of the alarms stream JetStream keeps (1 on one nats-server, 3 on a cluster of
  /// three): an alarm acknowledged by a cluster's leader is then on a majority of nodes.
  public var jetStreamReplicas: Int
  public var appURL: String?
  public var imageBaseURL: String?
  public var imageSecret: String?
  public var imagePreviousSecrets: [String]
  public var imageURLTTLSeconds: Int
  public var imageMinIntervalSeconds: Int
  public var imageDailyLimit: Int
  public var imageRetentionHours: Int
  public var imageKeep: Int
  public var imageFailedRetentionSeconds: Int
  public var photoTimeoutSeconds: Int
  public var cooldownTheftSeconds: Int
  public var cooldownStuckSeconds: Int
  public var imageRatePerNotification: Int
  public var imageRateTotal: Int
  public var apnsURL: String
  public var apnsSandboxURL: String
  public var apnsKeyPath: String?
  public var apnsKeyID: String?
  public var apnsTeamID: String?
  public var apnsTopic: String
  public var apnsCAFile: String?
  /// Push services a Web Push endpoint may name (host or parent domain), lower case: the
  /// server never posts to an address a user picked (docs/interfaces.md#devices).
  public var webPushHosts: [String]
  /// The installation's ntfy server; nil: no ntfy device can be registered.
  public var ntfyURL: String?
  /// The VAPID key (a P-256 private key, PEM); the WebPushWorker refuses to start without it.
  public var webPushVAPIDKeyPath: String?
  /// The VAPID `sub`: a `mailto:` address or an https URL; required with the key.
  public var webPushSubject: String?
  /// CA bundle for a test Web Push service; nil: the system trust store.
  public var webPushCAFile: String?
  /// The Google service-account JSON the FCMWorker signs its OAuth grant with; it refuses
  /// to start without it.
  public var fcmCredentialsPath: String?
  /// FCM HTTP v1's origin (a test double's in tests).
  public var fcmURL: String
  /// CA bundle for a test FCM double; nil: the system trust store.
  public var fcmCAFile: String?
  /// An access token for the ntfy server; nil: publish without one.
  public var ntfyToken: String?
  /// CA bundle for a test ntfy server; nil: the system trust store.
  public var ntfyCAFile: String?
  public var httpListen: String
  /// Reverse proxies whose `X-Forwarded-For` names the client of the serving process;
  /// none by default: the TCP peer is the client.
  public var trustedProxies: TrustedProxies
  public var pruneIntervalSeconds: Int
  /// Not in the contract: operational knobs with safe defaults.
  public var logLevel: Logger.Level
  public var databasePoolSize: Int
  public var natsSubjectPrefix: String
  /// How long JetStream waits for the fan-out's ack before redelivering (on a crash).
  public var fanoutAckWaitSeconds: Int
  /// Transactions of decisions one FanoutWorker runs at once (ADR 0049); never more than
  /// its pool has connections.
  public var fanoutTransactions: Int
  /// Camera requests one PhotoWorker keeps in flight at once.
  public var photoMaxInFlight: Int
  /// Bytes of answered photos one PhotoWorker may hold while they wait for PostgreSQL;
  /// a photo that would pass it is not kept (ADR 0019).
  public var photoMaxHeldBytes: Int
  /// Events older than this many days are removed by the PruneWorker.
  public var eventsRetentionDays: Int
  /// Events removed per transaction: short transactions never stall the writers.
  public var pruneBatchSize: Int
  /// How long an APNs worker holds a delivery before another may send it again.
  public var apnsLeaseSeconds: Int
  /// Where every worker, the serving process too, answers `/livez`, `/readyz`, `/healthz`
  /// and `/metrics`.
  public var metricsListen: String
  /// A worker that has had work waiting this long without finishing any reports itself
  /// not live, so that an orchestrator restarts it.
  public var stallSeconds: Int
  /// Attempts at one alarm that keeps failing with an error nobody can class, before it is
  /// rejected as `undecidable` (an outage never counts).
  public var fanoutMaxAttempts: Int
  /// How long a worker asked to stop may finish its work in hand before it is cancelled;
  /// 0 cancels it at once.
  public var shutdownGraceSeconds: Int

  public static let defaultDatabaseURL = "postgresql://mowdeck:mowdeck@127.0.0.1:5432/mowdeck"

  /// Reads the environment; throws the first bad setting it meets.
  public static func load(from environment: [String: String]) throws(ConfigurationError)
    -> Configuration
  {
    let reader = EnvironmentReader(environment, secretFiles: secretFiles)
    let allowHTTP = try reader.flag("MOWDECK_NOTIFICATIONS_ALLOW_HTTP_ORIGIN")
    let appURL = try publicOrigin(reader, "MOWDECK_NOTIFICATIONS_APP_URL", allowHTTP: allowHTTP)
    return Configuration(
      databaseURL: try reader.databaseURL("MOWDECK_DATABASE_URL") ?? defaultDatabaseURL,
      natsURL: try reader.natsURL("MOWDECK_NATS_URL") ?? "nats://127.0.0.1:4222",
      jetStreamReplicas: try reader.within(
        "MOWDECK_JETSTREAM_REPLICAS", 1, 1...5, because: "JetStream keeps 1 to 5 copies"),
      appURL: appURL,
      imageBaseURL: try publicOrigin(
        reader, "MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL", allowHTTP: allowHTTP) ?? appURL,
      imageSecret: try imageSecret(reader),
      imagePreviousSecrets: try imagePreviousSecrets(reader),
      imageURLTTLSeconds: try reader.positive("MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS", 600),
      imageMinIntervalSeconds: try reader.nonNegative(
        "MOWDECK_NOTIFICATIONS_IMAGE_MIN_INTERVAL_SECONDS", 60),
      imageDailyLimit: try reader.nonNegative("MOWDECK_NOTIFICATIONS_IMAGE_DAILY_LIMIT", 6),
      imageRetentionHours: try reader.positive("MOWDECK_NOTIFICATIONS_IMAGE_RETENTION_HOURS", 24),
      imageKeep: try reader.positive("MOWDECK_NOTIFICATIONS_IMAGE_KEEP", 200),
      imageFailedRetentionSeconds: try reader.positive(
        "MOWDECK_NOTIFICATIONS_IMAGE_FAILED_RETENTION_SECONDS", 3600),
      photoTimeoutSeconds: try reader.positive("MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS", 20),
      cooldownTheftSeconds: try reader.nonNegative(
        "MOWDECK_NOTIFICATIONS_COOLDOWN_THEFT_SECONDS", 600),
      cooldownStuckSeconds: try reader.nonNegative(
        "MOWDECK_NOTIFICATIONS_COOLDOWN_STUCK_SECONDS", 300),
      imageRatePerNotification: try reader.positive(
        "MOWDECK_NOTIFICATIONS_IMAGE_RATE_PER_NOTIFICATION", 40),
      imageRateTotal: try reader.positive("MOWDECK_NOTIFICATIONS_IMAGE_RATE_TOTAL", 600),
      apnsURL: try reader.url("MOWDECK_NOTIFICATIONS_APNS_URL") ?? "https://api.push.apple.com",
      apnsSandboxURL: try reader.url("MOWDECK_NOTIFICATIONS_APNS_SANDBOX_URL")
        ?? "https://api.sandbox.push.apple.com",
      apnsKeyPath: try reader.string("MOWDECK_NOTIFICATIONS_APNS_KEY_PATH"),
      apnsKeyID: try appleID(reader, "MOWDECK_NOTIFICATIONS_APNS_KEY_ID"),
      apnsTeamID: try appleID(reader, "MOWDECK_NOTIFICATIONS_APNS_TEAM_ID"),
      apnsTopic: try reader.string("MOWDECK_NOTIFICATIONS_APNS_TOPIC") ?? "app.mowdeck.mobile",
      apnsCAFile: try reader.string("MOWDECK_NOTIFICATIONS_APNS_CA_FILE"),
      webPushHosts: try webPushHosts(reader),
      ntfyURL: try reader.url("MOWDECK_NOTIFICATIONS_NTFY_URL"),
      webPushVAPIDKeyPath: try reader.string("MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"),
      webPushSubject: try reader.string("MOWDECK_NOTIFICATIONS_WEBPUSH_SUBJECT"),
      webPushCAFile: try reader.string("MOWDECK_NOTIFICATIONS_WEBPUSH_CA_FILE"),
      fcmCredentialsPath: try reader.string("MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH"),
      fcmURL: try reader.url("MOWDECK_NOTIFICATIONS_FCM_URL") ?? "https://fcm.googleapis.com",
      fcmCAFile: try reader.string("MOWDECK_NOTIFICATIONS_FCM_CA_FILE"),
      ntfyToken: try reader.string("MOWDECK_NOTIFICATIONS_NTFY_TOKEN"),
      ntfyCAFile: try reader.string("MOWDECK_NOTIFICATIONS_NTFY_CA_FILE"),
      httpListen: try reader.listenAddress("MOWDECK_NOTIFICATIONS_HTTP_LISTEN") ?? "0.0.0.0:8080",
      trustedProxies: try reader.trustedProxies("MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES"),
      pruneIntervalSeconds: try reader.positive(
        "MOWDECK_NOTIFICATIONS_PRUNE_INTERVAL_SECONDS", 3600),
      logLevel: try reader.logLevel("MOWDECK_LOG_LEVEL") ?? .info,
      databasePoolSize: try reader.positive("MOWDECK_DATABASE_POOL_SIZE", 4),
      natsSubjectPrefix: try reader.string("MOWDECK_NATS_SUBJECT_PREFIX") ?? "",
      fanoutAckWaitSeconds: try reader.positive("MOWDECK_FANOUT_ACK_WAIT_SECONDS", 10),
      fanoutTransactions: try reader.positive("MOWDECK_FANOUT_TRANSACTIONS", 1),
      photoMaxInFlight: try reader.positive("MOWDECK_PHOTO_MAX_IN_FLIGHT", 1000),
      photoMaxHeldBytes: try reader.atLeast(
        "MOWDECK_PHOTO_MAX_HELD_BYTES", 16 * 1_048_576, minimum: ImageLimits.largestPhotoBytes,
        because: "one photo of the largest size must fit"),
      eventsRetentionDays: try reader.positive("MOWDECK_EVENTS_RETENTION_DAYS", 30),
      pruneBatchSize: try reader.positive("MOWDECK_PRUNE_BATCH_SIZE", 5000),
      apnsLeaseSeconds: try reader.positive("MOWDECK_APNS_LEASE_SECONDS", 30),
      metricsListen: try reader.listenAddress("MOWDECK_METRICS_LISTEN") ?? "0.0.0.0:9090",
      stallSeconds: try reader.positive("MOWDECK_STALL_SECONDS", 60),
      fanoutMaxAttempts: try reader.positive("MOWDECK_FANOUT_MAX_ATTEMPTS", 5),
      shutdownGraceSeconds: try reader.nonNegative("MOWDECK_SHUTDOWN_GRACE_SECONDS", 8)
    )
  }

  /// The public push services' domains: Chrome's (FCM), Firefox's, Edge's and Safari's.
  public static let defaultWebPushHosts = [
    "fcm.googleapis.com", "push.services.mozilla.com", "notify.windows.com", "push.apple.com",
  ]

  /// `MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS`: host names, each with a port or without (a
  /// port other than 443 is allowed only where an entry names it), no scheme or path.
  static func webPushHosts(_ reader: EnvironmentReader) throws(ConfigurationError) -> [String] {
    let name = "MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS"
    let hosts = try reader.list(name).map { $0.lowercased() }
    for host in hosts where WebPushEndpoint.HostAndPort(host) == nil {
      throw ConfigurationError(
        variable: name,
        problem:
          "must be host names (HOST or HOST:PORT), comma-separated, got \(host.debugDescription)"
      )
    }
    return hosts.isEmpty ? defaultWebPushHosts : hosts
  }

  /// Loads the configuration or ends the process with one clear line and status 2.
  public static func loadOrExit(component: String) -> Configuration {
    do {
      return try load(from: ProcessInfo.processInfo.environment)
    } catch {
      StandardError.write("\(component): \(error.description)\n")
      exit(2)
    }
  }
}

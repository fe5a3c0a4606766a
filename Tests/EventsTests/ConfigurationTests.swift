import Events
import Infrastructure
import Testing

@Suite struct ConfigurationTests {
  @Test func emptyEnvironmentGivesTheContractDefaults() throws {
    let config = try Configuration.load(from: [:])
    #expect(config.databaseURL == Configuration.defaultDatabaseURL)
    #expect(config.natsURL == "nats://127.0.0.1:4222")
    #expect(config.jetStreamReplicas == 1)
    #expect(config.appURL == nil)
    #expect(config.imageBaseURL == nil)
    #expect(config.imageSecret == nil)
    #expect(config.imagePreviousSecrets == [])
    #expect(config.imageURLTTLSeconds == 600)
    #expect(config.imageMinIntervalSeconds == 60)
    #expect(config.imageDailyLimit == 6)
    #expect(config.imageRetentionHours == 24)
    #expect(config.imageKeep == 200)
    #expect(config.imageFailedRetentionSeconds == 3600)
    #expect(config.photoTimeoutSeconds == 20)
    #expect(config.cooldownTheftSeconds == 600)
    #expect(config.cooldownStuckSeconds == 300)
    #expect(config.imageRatePerNotification == 40)
    #expect(config.imageRateTotal == 600)
    #expect(config.apnsURL == "https://api.push.apple.com")
    #expect(config.apnsSandboxURL == "https://api.sandbox.push.apple.com")
    #expect(config.apnsKeyPath == nil)
    #expect(config.apnsKeyID == nil)
    #expect(config.apnsTeamID == nil)
    #expect(config.apnsTopic == "app.mowdeck.mobile")
    #expect(config.apnsCAFile == nil)
    #expect(config.httpListen == "0.0.0.0:8080")
    #expect(config.pruneIntervalSeconds == 3600)
    #expect(config.logLevel == .info)
    #expect(config.natsSubjectPrefix == "")
    #expect(config.photoMaxHeldBytes == 16 * 1_048_576)
    #expect(config.trustedProxies == .none)
    #expect(config.fanoutTransactions == 1)
  }

  /// A key of 32 bytes that starts with `word`.
  static func secret(_ word: String) -> String {
    word + String(repeating: "k", count: 32 - word.count)
  }

  @Test func libpqsPunctuationStaysAndItsQuotedTokensGo() throws {
    #expect {
      _ = try Configuration.load(from: ["MOWDECK_DATABASE_URL": "host=db port"])
    } throws: { error in
      (error as? ConfigurationError)?.description
        == "configuration error: MOWDECK_DATABASE_URL is not a PostgreSQL connection string"
        + " (missing \"=\" after \"…\" in connection info string)"
    }
  }

  @Test func bothFormsOfAPostgreSQLConnectionStringAreAccepted() throws {
    for url in ["postgresql://u:pw@db:5432/x?sslmode=disable", "host=db port=5432 dbname=x"] {
      #expect(try Configuration.load(from: ["MOWDECK_DATABASE_URL": url]).databaseURL == url)
    }
  }

  /// libpq quotes the whole URI in some of its messages (an unclosed IPv6 bracket), and the
  /// password itself in others (a bad percent-encoding in it).
  @Test(arguments: [
    "postgresql://u:s3cret@db/x?nosuch=1", "postgresql://u:s3cret@[db/x",
    "postgresql://u:s3cret%ZZ@db/x", "postgresql://u:s3cret%00@db/x",
  ])
  func aBadConnectionStringIsNamedWithoutRepeatingItsPassword(url: String) {
    #expect {
      _ = try Configuration.load(from: ["MOWDECK_DATABASE_URL": url])
    } throws: { error in
      guard let error = error as? ConfigurationError else { return false }
      return error.variable == "MOWDECK_DATABASE_URL" && !error.description.contains("s3cret")
        && error.description.contains("not a PostgreSQL connection string")
    }
  }

  @Test func theHeldPhotoBudgetMustFitTheLargestPhoto() throws {
    let fits = try Configuration.load(from: ["MOWDECK_PHOTO_MAX_HELD_BYTES": "524288"])
    #expect(fits.photoMaxHeldBytes == 524_288)
    #expect {
      _ = try Configuration.load(from: ["MOWDECK_PHOTO_MAX_HELD_BYTES": "524287"])
    } throws: { error in
      (error as? ConfigurationError)?.description
        == "configuration error: MOWDECK_PHOTO_MAX_HELD_BYTES must be at least 524288"
        + " (one photo of the largest size must fit), got 524287"
    }
  }

  @Test func emptyAndBlankValuesCountAsUnset() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS": "",
      "MOWDECK_NOTIFICATIONS_APP_URL": "   ",
      "MOWDECK_NATS_URL": "",
    ])
    #expect(config.imageURLTTLSeconds == 600)
    #expect(config.appURL == nil)
    #expect(config.natsURL == "nats://127.0.0.1:4222")
  }

  @Test func imageBaseURLDefaultsToTheAppURL() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_NOTIFICATIONS_APP_URL": "https://mowdeck.example.com/"
    ])
    #expect(config.appURL == "https://mowdeck.example.com")
    #expect(config.imageBaseURL == "https://mowdeck.example.com")
  }

  @Test func imageBaseURLCanDifferFromTheAppURL() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_NOTIFICATIONS_APP_URL": "https://mowdeck.example.com",
      "MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL": "https://img.example.com",
    ])
    #expect(config.imageBaseURL == "https://img.example.com")
  }

  @Test func setValuesAreRead() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_DATABASE_URL": "postgresql://u@db:5432/x",
      "MOWDECK_NATS_URL": "nats://a:4222, nats://b:4222",
      "MOWDECK_NOTIFICATIONS_IMAGE_SECRET": Self.secret("s3cret"),
      "MOWDECK_NOTIFICATIONS_IMAGE_PREVIOUS_SECRETS":
        "\(Self.secret("old1")), ,\(Self.secret("old2")),",
      "MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS": " 120 ",
      "MOWDECK_NOTIFICATIONS_IMAGE_DAILY_LIMIT": "0",
      "MOWDECK_NOTIFICATIONS_COOLDOWN_THEFT_SECONDS": "0",
      "MOWDECK_NOTIFICATIONS_HTTP_LISTEN": "127.0.0.1:0",
      "MOWDECK_NOTIFICATIONS_APNS_TOPIC": "com.example.app",
      "MOWDECK_LOG_LEVEL": "WARNING",
      "MOWDECK_NATS_SUBJECT_PREFIX": "t1234",
    ])
    #expect(config.databaseURL == "postgresql://u@db:5432/x")
    #expect(config.natsURL == "nats://a:4222, nats://b:4222")
    #expect(config.imageSecret == Self.secret("s3cret"))
    #expect(config.imagePreviousSecrets == [Self.secret("old1"), Self.secret("old2")])
    #expect(config.imageURLTTLSeconds == 120)
    #expect(config.imageDailyLimit == 0)
    #expect(config.cooldownTheftSeconds == 0)
    #expect(config.httpListen == "127.0.0.1:0")
    #expect(config.apnsTopic == "com.example.app")
    #expect(config.logLevel == .warning)
    #expect(config.natsSubjectPrefix == "t1234")
  }

  @Test(arguments: [
    ("MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS", "ten"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS", "0"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS", "1.5"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_MIN_INTERVAL_SECONDS", "-1"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_DAILY_LIMIT", "six"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_RETENTION_HOURS", "0"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_KEEP", "0"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_FAILED_RETENTION_SECONDS", "-3600"),
    ("MOWDECK_NOTIFICATIONS_PHOTO_TIMEOUT_SECONDS", "20s"),
    ("MOWDECK_NOTIFICATIONS_COOLDOWN_THEFT_SECONDS", "-600"),
    ("MOWDECK_NOTIFICATIONS_COOLDOWN_STUCK_SECONDS", "-1"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_RATE_PER_NOTIFICATION", "0"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_RATE_TOTAL", "99999999999999999999999"),
    ("MOWDECK_NOTIFICATIONS_PRUNE_INTERVAL_SECONDS", "hourly"),
    ("MOWDECK_NOTIFICATIONS_APP_URL", "mowdeck.example.com"),
    ("MOWDECK_NOTIFICATIONS_APP_URL", "ftp://mowdeck.example.com"),
    ("MOWDECK_NOTIFICATIONS_APP_URL", "https://"),
    ("MOWDECK_NOTIFICATIONS_IMAGE_BASE_URL", "not a url"),
    ("MOWDECK_NOTIFICATIONS_APNS_URL", "api.push.apple.com"),
    ("MOWDECK_NOTIFICATIONS_APNS_SANDBOX_URL", "nats://api.sandbox.push.apple.com"),
    ("MOWDECK_NATS_URL", "http://127.0.0.1:4222"),
    ("MOWDECK_NATS_URL", "127.0.0.1:4222"),
    ("MOWDECK_NATS_URL", "nats://a:4222,localhost"),
    ("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", "8080"),
    ("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", ":8080"),
    ("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", "0.0.0.0:http"),
    ("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", "0.0.0.0:65536"),
    ("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", "0.0.0.0:-1"),
    ("MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS", "127.0.0.1"),
    ("MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS", "localhost:0"),
    ("MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS", "localhost:65536"),
    ("MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS", "localhost:https"),
    ("MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS", "localhost:"),
    ("MOWDECK_NOTIFICATIONS_WEBPUSH_HOSTS", "https://push.example"),
    ("MOWDECK_LOG_LEVEL", "verbose"),
    ("MOWDECK_LOG_LEVEL", "warn"),
    ("MOWDECK_DATABASE_POOL_SIZE", "0"),
    ("MOWDECK_JETSTREAM_REPLICAS", "0"),
    ("MOWDECK_JETSTREAM_REPLICAS", "6"),
    ("MOWDECK_PHOTO_MAX_HELD_BYTES", "16 MiB"),
    ("MOWDECK_DATABASE_URL", "nope"),
    ("MOWDECK_DATABASE_URL", "postgresql://u@db:5432/x?sslmode"),
    ("MOWDECK_DATABASE_URL", "host=db port"),
    // Values read from files often end in a newline; the one line must stay one line.
    ("MOWDECK_NOTIFICATIONS_IMAGE_URL_TTL_SECONDS", "ten\nminutes"),
    ("MOWDECK_NOTIFICATIONS_APP_URL", "https://a b\n"),
  ])
  func malformedSettingThrowsOneLineNamingTheVariable(variable: String, value: String) {
    let environment = [variable: value]
    #expect {
      _ = try Configuration.load(from: environment)
    } throws: { error in
      guard let error = error as? ConfigurationError else { return false }
      return error.variable == variable && error.description.contains(variable)
        && !error.description.contains("\n") && !error.description.contains("\r")
    }
  }

  /// A cluster's settings: every server of each, in the forms libpq and nats.c take.
  @Test func aClusterIsNamedServerByServer() throws {
    let config = try Configuration.load(from: [
      "MOWDECK_DATABASE_URL":
        "postgresql://mowdeck@pg-1:5432,pg-2:5432/mowdeck?target_session_attrs=read-write",
      "MOWDECK_NATS_URL": "nats://nats-1:4222, nats://nats-2:4222,nats://nats-3:4222",
      "MOWDECK_JETSTREAM_REPLICAS": "3",
    ])
    #expect(config.databaseURL.contains("pg-1:5432,pg-2:5432"))
    #expect(config.jetStreamReplicas == 3)
    #expect(
      NATSClient.servers(in: config.natsURL) == [
        "nats://nats-1:4222", "nats://nats-2:4222", "nats://nats-3:4222",
      ])
  }

  @Test func oneBadSettingAmongGoodOnesStillThrows() {
    let environment = [
      "MOWDECK_NOTIFICATIONS_APP_URL": "https://ok.example.com",
      "MOWDECK_NOTIFICATIONS_IMAGE_KEEP": "0",
    ]
    #expect(throws: ConfigurationError.self) { try Configuration.load(from: environment) }
  }
}

import Infrastructure

/// What FCM checks of a `messages:send` body before it looks at the token's device, so a
/// sender's typo fails here as it would at Google: unknown fields and wrong types are 400
/// INVALID_ARGUMENT naming the field (protobuf's JSON mapping accepts field names in
/// snake_case and lowerCamelCase alike); a malformed token is 400 with the FcmError
/// INVALID_ARGUMENT detail. Only token targets are served.
enum MessageCheck {
  /// FCM's limit on a message's data: keys and values, in bytes.
  static let maximumDataBytes = 4096
  /// FCM's longest time to live: four weeks.
  static let maximumTTLSeconds = 2_419_200

  struct Valid {
    var token: String
    var message: JSONValue
  }

  static let topFields: Set<String> = ["message", "validate_only"]
  static let messageFields: Set<String> = [
    "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token",
    "topic", "condition",
  ]
  static let notificationFields: Set<String> = ["title", "body", "image"]
  static let androidFields: Set<String> = [
    "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification",
    "fcm_options", "direct_boot_ok", "bandwidth_constrained_ok", "restricted_satellite_ok",
  ]
  static let androidNotificationStrings: Set<String> = [
    "title", "body", "icon", "color", "sound", "tag", "click_action", "channel_id", "ticker",
    "image", "body_loc_key", "title_loc_key",
  ]
  static let androidNotificationOthers: Set<String> = [
    "body_loc_args", "title_loc_args", "sticky", "event_time", "local_only",
    "notification_priority", "default_sound", "default_vibrate_timings",
    "default_light_settings", "vibrate_timings", "visibility", "notification_count",
    "light_settings", "bypass_proxy_notification", "proxy",
  ]

  static func check(_ body: [UInt8]) -> Result<Valid, GoogleError> {
    Result { () throws(GoogleError) -> Valid in try valid(body) }
  }

  private static func valid(_ body: [UInt8]) throws(GoogleError) -> Valid {
    guard let json = JSONValue.parse(body) else {
      throw .invalidField("", "Invalid JSON payload received.")
    }
    let top = try object(json, "", allowed: topFields)
    if let flag = top["validate_only"] {
      guard case .bool = flag else {
        throw .invalidField("validate_only", "Invalid value at 'validate_only' (TYPE_BOOL)")
      }
    }
    guard let messageJSON = top["message"] else {
      throw .invalidField("message", "Missing required field: message")
    }
    let message = try object(messageJSON, "message", allowed: messageFields)
    let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
    guard targets == ["token"] else {
      throw .invalidField(
        "message",
        "Exactly one of token, topic or condition is required "
          + "(this double serves token messages only), got \(targets)")
    }
    guard case .string(let token) = message["token"], isRegistrationToken(token) else {
      throw FCMAnswer.invalidArgument.error!
    }
    if let notification = message["notification"] {
      try strings(
        object(notification, "message.notification", allowed: notificationFields),
        "message.notification")
    }
    if let data = message["data"] {
      try dataMap(data, "message.data")
    }
    if let android = message["android"] {
      try checkAndroid(android)
    }
    return Valid(token: token, message: messageJSON)
  }

  private static func checkAndroid(_ json: JSONValue) throws(GoogleError) {
    let android = try object(json, "message.android", allowed: androidFields)
    if let priority = android["priority"], priority != .string("NORMAL"),
      priority != .string("HIGH")
    {
      throw .invalidField(
        "message.android.priority",
        "Invalid value at 'message.android.priority' (type.googleapis.com/"
          + "google.firebase.fcm.v1.AndroidMessagePriority), \(priority.text)")
    }
    if let ttl = android["ttl"], !isTTL(ttl) {
      throw .invalidField(
        "message.android.ttl",
        "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), "
          + "\(ttl.text)")
    }
    try strings(
      android.filter { ["collapse_key", "restricted_package_name"].contains($0.key) },
      "message.android")
    if let data = android["data"] { try dataMap(data, "message.android.data") }
    if let notification = android["notification"] {
      let fields = try object(
        notification, "message.android.notification",
        allowed: androidNotificationStrings.union(androidNotificationOthers))
      try strings(
        fields.filter { androidNotificationStrings.contains($0.key) },
        "message.android.notification")
    }
  }

  /// The members of an object, names in snake_case; throws for another JSON type or for a
  /// name not in `allowed`.
  private static func object(_ json: JSONValue, _ path: String, allowed: Set<String>)
    throws(GoogleError) -> [String: JSONValue]
  {
    guard case .object(let members) = json else {
      throw .invalidField(path, "Invalid value at '\(path)': not an object")
    }
    var fields: [String: JSONValue] = [:]
    for (name, value) in members {
      let field = snakeCase(name)
      guard allowed.contains(field) else {
        throw .invalidField(
          path,
          "Invalid JSON payload received. Unknown name \"\(name)\" at '\(path)': "
            + "Cannot find field.")
      }
      fields[field] = value
    }
    return fields
  }

  private static func strings(_ fields: [String: JSONValue], _ path: String)
    throws(GoogleError)
  {
    for (name, value) in fields {
      guard case .string = value else {
        throw .invalidField(
          "\(path).\(name)", "Invalid value at '\(path).\(name)' (TYPE_STRING), \(value.text)")
      }
    }
  }

  /// A map of strings without FCM's reserved keys, within the size limit.
  private static func dataMap(_ json: JSONValue, _ path: String) throws(GoogleError) {
    guard case .object(let members) = json else {
      throw .invalidField(path, "Invalid value at '\(path)': not a map of strings")
    }
    var bytes = 0
    for (index, (key, value)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
      guard case .string(let text) = value else {
        throw .invalidField(
          "\(path)[\(index)].value",
          "Invalid value at '\(path)[\(index)].value' (TYPE_STRING), \(value.text)")
      }
      let lowered = key.lowercased()
      guard lowered != "from", lowered != "message_type", !lowered.hasPrefix("google"),
        !lowered.hasPrefix("gcm")
      else { throw .invalidField(path, "Invalid data payload key: \(key)") }
      bytes += key.utf8.count + text.utf8.count
    }
    guard bytes <= maximumDataBytes else {
      throw .invalidField(
        path, "Message is too big: \(bytes) bytes of data over \(maximumDataBytes)")
    }
  }

  /// `[A-Za-z0-9_:-]`, 1 to 4096 characters.
  static func isRegistrationToken(_ token: String) -> Bool {
    (1...4096).contains(token.utf8.count)
      && token.utf8.allSatisfy { c in
        (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c) || c == 45
          || c == 95 || c == 58
      }
  }

  /// A protobuf Duration in JSON ("1800s", "3.5s"), not negative, at most four weeks.
  static func isTTL(_ json: JSONValue) -> Bool {
    guard case .string(let text) = json, text.hasSuffix("s") else { return false }
    let number = text.dropLast().split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(number.count),
      number.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
      number.count == 1 || number[1].count <= 9, let seconds = Int(number[0])
    else { return false }
    return seconds < maximumTTLSeconds || (seconds == maximumTTLSeconds && number.count == 1)
  }

  /// `collapseKey` → `collapse_key`; snake_case names stay as they are.
  static func snakeCase(_ name: String) -> String {
    var out = ""
    for character in name {
      if character.isUppercase {
        out += "_" + character.lowercased()
      } else {
        out.append(character)
      }
    }
    return out
  }
}

import Infrastructure
import Testing

/// Each kind of secret docs/interfaces.md#event-log keeps out of logs, and the text around it kept.
@Suite struct RedactionTests {
  let deviceToken = "8c2f6a4e1b9d3f7a" + String(repeating: "0a1b2c3d", count: 6)

  @Test(arguments: [
    ("nats://mowdeck:hunter2@nats.internal:4222", "nats://***@nats.internal:4222"),
    (
      "postgresql://mowdeck:s3cr3t@db.internal:5432/mowdeck?sslmode=require",
      "postgresql://***@db.internal:5432/mowdeck?sslmode=require"
    ),
    ("https://alice:pw@ntfy.example/alarms", "https://***@ntfy.example/alarms"),
    ("nats://s3cr3tT0ken@nats.internal", "nats://***@nats.internal"),
    // An unescaped `@` in the password: the authority's last `@` ends the userinfo.
    ("tls://user:p@ss@nats.internal:4443", "tls://***@nats.internal:4443"),
    (
      "nats://a.internal:4222,nats://u:hunter2@b.internal:4222",
      "nats://a.internal:4222,nats://***@b.internal:4222"
    ),
    (
      "nats://u:hunter2@a.internal:4222,nats://v:swordfish@b.internal",
      "nats://***@a.internal:4222,nats://***@b.internal"
    ),
  ])
  func theUserinfoOfAURLGoesAndItsSchemeAndHostStay(url: String, expected: String) {
    #expect(Redaction.redact("connect to \(url) failed") == "connect to \(expected) failed")
  }

  @Test(arguments: [
    "https://owner.example/api/v1/users/@me", "mailto:someone@example.com",
    "nats://nats.internal:4222", "user@example.com wrote",
  ])
  func aURLWithoutUserinfoIsUnchanged(text: String) {
    #expect(Redaction.redact(text) == text)
  }

  @Test(arguments: [
    (
      "host=db user=mowdeck password=hunter2 dbname=m", "host=db user=mowdeck password=*** dbname=m"
    ),
    ("host=db password = hunter2 port=5432", "host=db password = *** port=5432"),
    ("password='two words \\' quoted' host=db", "password=*** host=db"),
    (
      "postgresql://db/m?user=a&password=hunter2&sslmode=require",
      "postgresql://db/m?user=a&password=***&sslmode=require"
    ),
    (
      "sslpassword=hunter2 client_secret=abc auth_token=xyz",
      "sslpassword=*** client_secret=*** auth_token=***"
    ),
  ])
  func aPasswordValueGoes(text: String, expected: String) {
    #expect(Redaction.redact(text) == expected)
  }

  @Test func aJWTIsCutToItsFirstCharacters() {
    let jwt =
      "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMzQ1NkQifQ.eyJpc3MiOiJERUYxMjMiLCJpYXQiOjE3MDB9"
      + ".MEUCIQDx4b7Tq9c4yA1t2ZcYxB0G3Yq8u9m7xv_kq-0pLw"
    let redacted = Redaction.redact("token \(jwt) rejected")
    #expect(redacted == "token eyJhbGci… rejected")
  }

  @Test func aPrivateKeyBlockLosesItsBody() {
    let key = """
      -----BEGIN EC PRIVATE KEY-----
      MHcCAQEEIBk7a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2oAoGCCqGSM49
      AwEHoUQDQgAE
      -----END EC PRIVATE KEY-----
      """
    let redacted = Redaction.redact("cannot read key: \(key) (bad curve)")
    #expect(
      redacted
        == "cannot read key: -----BEGIN EC PRIVATE KEY-----***-----END EC PRIVATE KEY----- (bad curve)"
    )
    // A block cut off before its END line goes to the end of the text.
    #expect(
      Redaction.redact("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49")
        == "-----BEGIN PRIVATE KEY-----***")
    // A public key or certificate is no secret.
    let certificate = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"
    #expect(Redaction.redact(certificate) == certificate)
  }

  @Test(arguments: [
    ("authorization: Bearer abc.def-ghi_jkl, retry", "authorization: Bearer ***, retry"),
    ("authorization: bearer 12345", "authorization: bearer ***"),
    (
      "Authorization: vapid t=eyJ0eXAi.eyJhdWQi.c2lnbmF0dXJl, k=BPnJ8Kx2 sent",
      "Authorization: vapid *** sent"
    ),
  ])
  func anAuthorizationValueGoes(text: String, expected: String) {
    #expect(Redaction.redact(text) == expected)
  }

  @Test func aDeviceTokenKeepsOnlyItsPrefix() {
    let redacted = Redaction.redact("POST /3/device/\(deviceToken) answered 410")
    #expect(redacted == "POST /3/device/8c2f6a4e… answered 410")
  }

  @Test func anFCMRegistrationTokenKeepsOnlyItsPrefixThoughItsInstanceIDIsShort() {
    let token =
      "dGhpc2lzYW5pbnN0YW5jZQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx6oe_eFy1ixXjWtq1V4pIy-4Ym"
      + "bA8TDSOj0Nt7TmuE9OcpwS8ZfpDzRlnAzQn5oGrDbmP6uSPmTCGzUBR-3XjnHCXS9vz_yQ6SY07C0dD"
    #expect(
      Redaction.redact("send to \(token) answered 404") == "send to dGhpc2lz… answered 404")
    #expect(Redaction.redact("{\"token\":\"\(token)\"}") == "{\"token\":\"dGhpc2lz…\"}")
  }

  @Test func anOAuthAccessTokenKeepsOnlyItsPrefix() {
    let accessToken =
      "ya29.c.c0ASRK0GZ3xkq8Rk2Vd9PqLmN4tY7wB1cE6fH0jS5uA2oI3rT8vX9zQ4pW7eR1yU6iO0aS3dF5gH8"
    let redacted = Redaction.redact("{\"access_token\":\"\(accessToken)\",\"expires_in\":3599}")
    #expect(redacted == "{\"access_token\":\"ya29.c.c0ASRK0G…\",\"expires_in\":3599}")
  }

  @Test func theKeyOfAServiceAccountFileGoes() {
    // As the file holds it: the PEM's line breaks escaped in a JSON string.
    let file =
      #"{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq"#
      + #"hkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n","client_email":"a@b.iam"}"#
    #expect(
      Redaction.redact(file)
        == #"{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----***"#
        + #"-----END PRIVATE KEY-----\n","client_email":"a@b.iam"}"#)
  }

  @Test func aLongBase64URLSecretKeepsOnlyItsPrefix() {
    let sessionToken = "Qm9vZ3JhcGh5LXNlc3Npb24tdG9rZW4tMTIzNDU2Nzg5MA"
    #expect(Redaction.redact("session \(sessionToken) expired") == "session Qm9vZ3Jh… expired")
  }

  @Test func theSignatureOfASignedImageURLGoes() {
    let url =
      "https://owner.example/api/v1/notifications/push-images/"
      + "0f8fad5b-d9cb-469f-a165-70867728950e?e=1800000600&s=Xk3_9-aZ"
    #expect(
      Redaction.redact(url)
        == "https://owner.example/api/v1/notifications/push-images/"
        + "0f8fad5b-d9cb-469f-a165-70867728950e?e=1800000600&s=***")
    #expect(Redaction.redact("/i?s=abc&e=1") == "/i?s=***&e=1")
  }

  @Test(arguments: [
    "delivery 0f8fad5b-d9cb-469f-a165-70867728950e sent",
    "mowdeck_photo_requests_waiting_for_the_camera_total",
    "NATS disconnected, reconnecting: Connection refused (status 30)",
    "at 10:15:00 from localhost:4222 and [::1]:8443, mowdeck_fcm_responses_total:sent",
    "Rasenmäher 🤖 „Robbie“ s=ok a=b password authentication failed",
    "",
  ])
  func textWithoutSecretsIsUnchanged(text: String) {
    #expect(Redaction.redact(text) == text)
  }

  @Test func textAroundASecretKeepsItsMultibyteCharacters() {
    #expect(
      Redaction.redact("Rasenmäher 🤖 nats://u:pw@höst.example ü")
        == "Rasenmäher 🤖 nats://***@höst.example ü")
  }
}

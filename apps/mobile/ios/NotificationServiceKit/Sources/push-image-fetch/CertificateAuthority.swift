import Foundation

/// `--ca-file`: trusting a test certificate authority without ever weakening verification.
///
/// swift-corelibs-foundation's URLSession (libcurl) reads the environment variable
/// `URLSessionCertificateAuthorityInfoFile` only when built for Android (`EasyHandle.swift`,
/// `setCARootBundlePath`), and offers no other way to add an authority: no server-trust
/// challenge reaches the delegate. Setting the variable on Linux was tried and changes nothing,
/// as do `SSL_CERT_FILE` and `CURL_CA_BUNDLE`. So the option works on Android and is refused,
/// with the reason, everywhere else; the README shows how to trust a test CA on Linux.
enum CertificateAuthority {
  struct Failure: Error {
    var message: String
  }

  static func trust(file path: String) throws(Failure) {
    #if os(Android)
      let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { throw Failure(message: "--ca-file: no such file: \(path)") }
      // libcurl then trusts this file instead of the system's bundle, which is what a test
      // against a private CA wants. An absolute path can never be the variable's magic value
      // INSECURE_SSL_NO_VERIFY, which would switch verification off.
      guard absolute.hasPrefix("/"),
        setenv("URLSessionCertificateAuthorityInfoFile", absolute, 1) == 0
      else { throw Failure(message: "--ca-file: could not set it for URLSession") }
    #else
      throw Failure(
        message: """
          --ca-file works on Android only: on Linux, URLSession has no way to add a \
          certificate authority (swift-corelibs-foundation reads \
          URLSessionCertificateAuthorityInfoFile on Android only), and on Apple platforms this \
          tool does not implement one. Add the CA to the system trust store instead; see \
          apps/mobile/ios/NotificationServiceKit/README.md.
          """)
    #endif
  }
}

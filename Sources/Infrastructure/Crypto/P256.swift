import COpenSSL

/// The OpenSSL 3 calls behind the P-256 key types: keys go in and out as raw bytes (the
/// 65-byte uncompressed point, the 32-byte scalar) because that is how Web Push, VAPID and
/// JWS carry them. Keys are built with `EVP_PKEY_fromdata` and read through params, and the
/// one point multiplication uses `EC_POINT`, none of it deprecated in OpenSSL 3 (`EC_KEY` is).
enum P256 {
  static let groupName = "prime256v1"
  static let publicKeyLength = 65
  static let privateKeyLength = 32

  /// An `EVP_PKEY` holding only the public point; rejects points not on the curve.
  static func publicKey(uncompressed point: [UInt8]) throws(P256Error) -> OpaquePointer {
    guard point.count == publicKeyLength, point[0] == 0x04 else {
      throw .publicKeyNotUncompressedPoint(length: point.count)
    }
    let key = fromData(selection: publicKeySelection, publicKey: point, privateKey: nil)
    // `EVP_PKEY_fromdata` already refuses a point off the curve; the quick public check
    // makes sure of it whatever the OpenSSL version does. P-256's cofactor is 1, so a
    // point on the curve is in the prime-order group: the full check's scalar
    // multiplication by the order would prove nothing more, and it cost every Web Push
    // message a third of its elliptic-curve work (docs/benchmarks.md, "Web Push").
    guard let key else {
      ERR_clear_error()
      throw .publicKeyNotOnCurve
    }
    guard check(key, EVP_PKEY_public_check_quick) else {
      EVP_PKEY_free(key)
      ERR_clear_error()
      throw .publicKeyNotOnCurve
    }
    return key
  }

  /// An `EVP_PKEY` key pair from the raw scalar; the public point is computed from it.
  static func privateKey(scalar: [UInt8]) throws(P256Error) -> OpaquePointer {
    guard scalar.count == privateKeyLength,
      let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)
    else { throw .invalidPrivateKey }
    defer { EC_GROUP_free(group) }
    guard let d = BN_bin2bn(scalar, Int32(scalar.count), nil) else { throw .invalidPrivateKey }
    defer { BN_clear_free(d) }
    guard BN_is_zero(d) == 0, BN_cmp(d, EC_GROUP_get0_order(group)) < 0,
      let point = EC_POINT_new(group)
    else { throw .invalidPrivateKey }
    defer { EC_POINT_free(point) }
    var encoded = [UInt8](repeating: 0, count: publicKeyLength)
    guard EC_POINT_mul(group, point, d, nil, nil, nil) == 1,
      EC_POINT_point2oct(
        group, point, POINT_CONVERSION_UNCOMPRESSED, &encoded, encoded.count, nil)
        == publicKeyLength
    else { throw .invalidPrivateKey }
    let key = fromData(selection: keyPairSelection, publicKey: encoded, privateKey: d)
    guard let key else {
      ERR_clear_error()
      throw .invalidPrivateKey
    }
    return key
  }

  /// A fresh key pair from OpenSSL's random generator.
  static func generate() throws(P256Error) -> OpaquePointer {
    guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
      throw .keyGenerationFailed
    }
    defer { EVP_PKEY_CTX_free(context) }
    var key: OpaquePointer? = nil
    guard EVP_PKEY_keygen_init(context) == 1,
      EVP_PKEY_CTX_set_group_name(context, groupName) == 1,
      EVP_PKEY_generate(context, &key) == 1, let key
    else {
      ERR_clear_error()
      throw .keyGenerationFailed
    }
    return key
  }

  /// Whether `key` is an EC key on P-256 (a PEM file may hold any key).
  static func isP256(_ key: OpaquePointer) -> Bool {
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard
      EVP_PKEY_get_utf8_string_param(
        key, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1
    else { return false }
    let bytes = name.prefix(length).map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self) == groupName
  }

  /// 0x04 ‖ x ‖ y, from the coordinates rather than the key's stored encoding, which may be
  /// compressed for a key read from a file.
  static func uncompressedPublicKey(of key: OpaquePointer) -> [UInt8]? {
    var x: OpaquePointer? = nil
    var y: OpaquePointer? = nil
    defer {
      BN_free(x)
      BN_free(y)
    }
    guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1,
      EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1
    else { return nil }
    var out = [UInt8](repeating: 0, count: publicKeyLength)
    out[0] = 0x04
    let written = out.withUnsafeMutableBufferPointer { buffer in
      BN_bn2binpad(x, buffer.baseAddress! + 1, 32) == 32
        && BN_bn2binpad(y, buffer.baseAddress! + 33, 32) == 32
    }
    return written ? out : nil
  }

  /// ECDH: the x coordinate of `privateKey` times `peer`, 32 bytes.
  static func sharedSecret(privateKey: OpaquePointer, peer: OpaquePointer) -> [UInt8]? {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey, nil) else { return nil }
    defer { EVP_PKEY_CTX_free(context) }
    var length = 0
    guard EVP_PKEY_derive_init(context) == 1,
      EVP_PKEY_derive_set_peer_ex(context, peer, 1) == 1,
      EVP_PKEY_derive(context, nil, &length) == 1, length == 32
    else {
      ERR_clear_error()
      return nil
    }
    var secret = [UInt8](repeating: 0, count: length)
    guard EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else {
      ERR_clear_error()
      return nil
    }
    return secret
  }

  // EVP_PKEY_PUBLIC_KEY and EVP_PKEY_KEYPAIR are compound macros Swift does not import.
  private static let publicKeySelection =
    Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS) | Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
  private static let keyPairSelection = publicKeySelection | Int32(OSSL_KEYMGMT_SELECT_PRIVATE_KEY)

  /// `EVP_PKEY_fromdata` for P-256 from the encoded public point and, for a key pair, the
  /// private scalar.
  private static func fromData(
    selection: Int32, publicKey point: [UInt8], privateKey d: OpaquePointer?
  ) -> OpaquePointer? {
    guard let builder = OSSL_PARAM_BLD_new() else { return nil }
    defer { OSSL_PARAM_BLD_free(builder) }
    // The builder keeps the pointers it is given, not copies, until `to_param`, and the
    // parameters keep the names: hence static strings and one scope for the point.
    return point.withUnsafeBytes { pointBytes -> OpaquePointer? in
      guard
        OSSL_PARAM_BLD_push_utf8_string(
          builder, ParameterName.group.cString, ParameterName.prime256v1.cString, 0) == 1,
        OSSL_PARAM_BLD_push_octet_string(
          builder, ParameterName.publicKey.cString, pointBytes.baseAddress, pointBytes.count)
          == 1,
        d.map({ OSSL_PARAM_BLD_push_BN(builder, ParameterName.privateKey.cString, $0) == 1 })
          ?? true,
        let params = OSSL_PARAM_BLD_to_param(builder)
      else { return nil }
      defer { OSSL_PARAM_free(params) }
      guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
      defer { EVP_PKEY_CTX_free(context) }
      var key: OpaquePointer? = nil
      guard EVP_PKEY_fromdata_init(context) == 1,
        EVP_PKEY_fromdata(context, &key, selection, params) == 1
      else { return nil }
      return key
    }
  }

  private static func check(
    _ key: OpaquePointer, _ test: (OpaquePointer?) -> Int32
  ) -> Bool {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return false }
    defer { EVP_PKEY_CTX_free(context) }
    return test(context) == 1
  }
}

/// Names and values for `OSSL_PARAM`s that must outlive the call that takes them: Swift
/// passes the imported `OSSL_PKEY_PARAM_*` macros as temporary C strings, these are static.
/// Same spellings as `<openssl/core_names.h>` (a test checks).
enum ParameterName {
  static let group: StaticString = "group"
  static let publicKey: StaticString = "pub"
  static let privateKey: StaticString = "priv"
  static let prime256v1: StaticString = "prime256v1"
}

extension StaticString {
  /// The literal's NUL-terminated bytes, valid for the whole run.
  fileprivate var cString: UnsafePointer<CChar> {
    UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
  }
}

"use strict";
// An independent decryption of a Web Push message (RFC 8291 with RFC 8188's aes128gcm),
// written from the RFCs with nothing but Node.js's own `crypto`: what the Swift tests check
// `WebPushCipher.encrypt` against, so that the cipher is not only checked by its own
// decrypt. Used by Tests/InfrastructureTests/WebPushCipherNodeTests.swift.
//
//   node webpush-decrypt.js <user agent private key> <auth secret> <body>
//
// Every argument is base64url (the private key 32 bytes, the auth secret 16). On success it
// prints one JSON line, {"salt","rs","keyid","plaintext"} (bytes as base64url), and exits
// 0; on any failure it prints why on standard error and exits 1.
const crypto = require("crypto");

function fail(why) {
  process.stderr.write(`webpush-decrypt: ${why}\n`);
  process.exit(1);
}

const [privateKeyText, authText, bodyText] = process.argv.slice(2);
if (bodyText === undefined) fail("usage: webpush-decrypt.js PRIVATE_KEY AUTH BODY");
const privateKey = Buffer.from(privateKeyText, "base64url");
const authSecret = Buffer.from(authText, "base64url");
const body = Buffer.from(bodyText, "base64url");
if (privateKey.length !== 32) fail(`private key of ${privateKey.length} bytes, not 32`);
if (authSecret.length !== 16) fail(`auth secret of ${authSecret.length} bytes, not 16`);

// RFC 8188 section 2.1: salt (16) | rs (uint32, big-endian) | idlen (1) | keyid (idlen).
// RFC 8291 section 4: keyid is the sender's (application server's) ECDH public key, an
// uncompressed P-256 point of 65 bytes.
if (body.length < 21) fail(`body of ${body.length} bytes has no header`);
const salt = body.subarray(0, 16);
const rs = body.readUInt32BE(16);
const idlen = body[20];
if (rs < 18) fail(`rs ${rs} is below 18`);
if (idlen !== 65) fail(`idlen ${idlen} is not 65`);
if (body.length < 21 + idlen + 17) fail(`body of ${body.length} bytes is too short`);
const keyid = body.subarray(21, 21 + idlen);
if (keyid[0] !== 0x04) fail("keyid is not an uncompressed point");
const record = body.subarray(21 + idlen);
// RFC 8291 section 4: exactly one record, so it must fit in rs.
if (record.length > rs) fail(`record of ${record.length} bytes is over rs ${rs}`);

// RFC 8291 section 3.4, as its HMAC chains are written (each chain one HMAC-SHA-256 block).
const ecdh = crypto.createECDH("prime256v1");
ecdh.setPrivateKey(privateKey);
const userAgentPublicKey = ecdh.getPublicKey(null, "uncompressed");
let ecdhSecret;
try {
  ecdhSecret = ecdh.computeSecret(keyid);
} catch (error) {
  fail(`keyid is not a P-256 point: ${error.message}`);
}
const hmac = (key, data) => crypto.createHmac("sha256", key).update(data).digest();
const prkKey = hmac(authSecret, ecdhSecret);
const keyInfo = Buffer.concat([
  Buffer.from("WebPush: info\0", "latin1"), userAgentPublicKey, keyid,
]);
const ikm = hmac(prkKey, Buffer.concat([keyInfo, Buffer.from([1])]));
// RFC 8188 section 2.2 and 2.3, with the salt from the header.
const prk = hmac(salt, ikm);
const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0\x01", "latin1")).subarray(0, 16);
const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0\x01", "latin1")).subarray(0, 12);
// The one record's sequence number is 0: its nonce is the derived nonce itself.

const decipher = crypto.createDecipheriv("aes-128-gcm", cek, nonce);
decipher.setAuthTag(record.subarray(record.length - 16));
let padded;
try {
  padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
} catch (error) {
  fail(`the record does not authenticate: ${error.message}`);
}
// RFC 8188 section 2: the plaintext, then a delimiter (0x02 for the last record), then
// any number of zeros.
let end = padded.length - 1;
while (end >= 0 && padded[end] === 0) end -= 1;
if (end < 0 || padded[end] !== 0x02) fail("no last-record delimiter 0x02 after the plaintext");

process.stdout.write(JSON.stringify({
  salt: salt.toString("base64url"),
  rs,
  keyid: keyid.toString("base64url"),
  plaintext: padded.subarray(0, end).toString("base64url"),
}) + "\n");

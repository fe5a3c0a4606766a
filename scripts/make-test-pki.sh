#!/bin/sh
# Test certificates and keys for the APNs sandbox, made with the openssl command line:
#   ca.pem, ca.key                a certificate authority that only tests trust
#   server.pem, server.key        the sandboxes' TLS certificate for 127.0.0.1, localhost and
#                                 apns-sandbox, webpush-sandbox, fcm-sandbox and ntfy-sandbox
#                                 (their names in the compose stack)
#   apns-key.p8                   an APNs-style ES256 signing key (PKCS#8 PEM, P-256)
#   apns-key.pub.pem              its public key, for the sandbox's --public-key
# Usage: scripts/make-test-pki.sh DIR
# Idempotent: a DIR that already holds all six files is left as it is. Callers running at
# once on the same DIR take turns (flock), and the files are made in a private directory
# and moved in only when all exist, so a run killed half-way leaves no mismatched set.
set -eu

dir=${1:?usage: make-test-pki.sh DIR}
files="ca.pem ca.key server.pem server.key apns-key.p8 apns-key.pub.pem"

complete() {
  for f in $files; do [ -s "$dir/$f" ] || return 1; done
  return 0
}

mkdir -p "$dir"
if complete; then exit 0; fi
exec 9>"$dir/.lock"
flock 9
if complete; then exit 0; fi

work=$(mktemp -d "$dir/.pki.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

ec_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$1" 2>/dev/null; }

ec_key ca.key
openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=Mowdeck APNs Sandbox Test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -out ca.pem

ec_key server.key
openssl req -new -key server.key -subj "/CN=localhost" -out server.csr
cat >server.ext <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:apns-sandbox,DNS:webpush-sandbox,DNS:fcm-sandbox,DNS:ntfy-sandbox
EXT
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days 825 \
  -extfile server.ext -out server.pem 2>/dev/null

# genpkey writes PKCS#8 ("BEGIN PRIVATE KEY"), the form Apple's .p8 downloads have.
ec_key apns-key.p8
openssl pkey -in apns-key.p8 -pubout -out apns-key.pub.pem

chmod 600 ca.key server.key apns-key.p8
for f in $files; do mv -f "$f" "$dir/$f"; done

#!/usr/bin/env bash
# The secret files of the compose stack (deploy/compose.yaml's `secrets:`), in
# deploy/secrets/ or DIR. Those an installation makes itself are generated:
#   postgres-password          PostgreSQL's password (POSTGRES_PASSWORD_FILE), 32 hex bytes
#   database-url               MOWDECK_DATABASE_URL with that password (..._FILE)
#   database-url-cluster       the same for deploy/compose.cluster.yaml: both servers
#   replication-password       the cluster's replication role's password
#   image-secret               the key of the image URL signatures, 32 random bytes in hex
#   vapid-key.pem              the Web Push VAPID key (P-256, PKCS#8 PEM)
# Those that come from elsewhere are only listed when missing (README.md says where from):
#   apns-key.p8                the team's APNs key (Apple developer account)
#   fcm-service-account.json   the Firebase service account (Firebase console; fcm profile)
#   ntfy-token                 the ntfy server's access token, or empty (ntfy profile)
# With --dev they are made too, as the doubles of compose.dev.yaml accept them, with what
# the doubles themselves use:
#   apns-key.p8, apns-key.pub.pem   an APNs-style P-256 key (scripts/make-test-pki.sh)
#   dev-ca.pem                      a CA trusted only by this dev install, which signed
#   dev-tls.pem, dev-tls.key        the doubles' and the dev proxy's certificate (localhost,
#                                   127.0.0.1 and the doubles' service names)
#   fcm-service-account.json, fcm-key.pub.pem  a service account the FCM double accepts
#   ntfy-token                      the token the ntfy double requires
# A file that exists is never replaced: run it again after adding or removing one. The
# directory is 0700 and the files 0644: compose bind-mounts each file as it is, and the
# containers' users (uid 10001, postgres, Caddy's root without DAC_OVERRIDE) must read it;
# the directory keeps the host's other users out.
# Usage: scripts/make-secrets.sh [--dev] [DIR]
set -euo pipefail
# `... | put NAME` runs put in this shell, so that it can note what it made.
shopt -s lastpipe
cd "$(dirname "$0")/.."
dev=false
if [ "${1:-}" = --dev ]; then
  dev=true
  shift
fi
dir=${1:-deploy/secrets}
mkdir -p "$dir"
chmod 700 "$dir"
umask 022
made=()

# Writes stdin to $dir/$1 unless the file exists; atomically, so a run killed half-way
# leaves no half-written secret.
put() {
  local name=$1
  if [ -e "$dir/$name" ]; then
    cat >/dev/null
    return
  fi
  cat >"$dir/.$name.tmp"
  chmod 644 "$dir/.$name.tmp"
  mv "$dir/.$name.tmp" "$dir/$name"
  made+=("$name")
}

# No newline: the file's content is the value (a trailing one would be trimmed anyway).
[ -e "$dir/postgres-password" ] || openssl rand -hex 32 | tr -d '\n' | put postgres-password
password=$(cat "$dir/postgres-password")
printf 'postgresql://mowdeck:%s@postgres:5432/mowdeck' "$password" | put database-url
printf 'postgresql://mowdeck:%s@postgres:5432,postgres-standby:5432/mowdeck?target_session_attrs=read-write' \
  "$password" | put database-url-cluster
[ -e "$dir/replication-password" ] || openssl rand -hex 32 | tr -d '\n' | put replication-password
[ -e "$dir/image-secret" ] || openssl rand -hex 32 | tr -d '\n' | put image-secret
[ -e "$dir/vapid-key.pem" ] || openssl ecparam -name prime256v1 -genkey -noout \
  | openssl pkcs8 -topk8 -nocrypt | put vapid-key.pem

if $dev; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The test PKI of the tests and scripts/run.sh: its CA, a server certificate for
  # localhost, 127.0.0.1 and the doubles' names, and an APNs-style key. Its CA key is
  # thrown away with $work: nothing else is to be signed with it.
  scripts/make-test-pki.sh "$work/pki"
  # The CA and the certificate it signed go together: one missing, all three are made anew.
  if [ ! -e "$dir/dev-ca.pem" ] || [ ! -e "$dir/dev-tls.pem" ] || [ ! -e "$dir/dev-tls.key" ]; then
    rm -f "$dir/dev-ca.pem" "$dir/dev-tls.pem" "$dir/dev-tls.key"
  fi
  put dev-ca.pem <"$work/pki/ca.pem"
  put dev-tls.pem <"$work/pki/server.pem"
  put dev-tls.key <"$work/pki/server.key"
  put apns-key.p8 <"$work/pki/apns-key.p8"
  # Public halves, for the doubles to check signatures with: made again from whichever key
  # is there.
  openssl pkey -in "$dir/apns-key.p8" -pubout -out "$dir/apns-key.pub.pem"
  # A Firebase service account as the console's "Generate new private key" gives one, for
  # the FCM double of compose.dev.yaml: its client_email and project_id are the ones the
  # double checks, its token_uri is the double's token endpoint.
  if [ ! -e "$dir/fcm-service-account.json" ]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/fcm-key.pem" \
      2>/dev/null
    python3 - "$work/fcm-key.pem" <<'PY' | put fcm-service-account.json
import json, sys
print(json.dumps({"type": "service_account", "project_id": "mowdeck-dev",
                  "private_key_id": "dev", "private_key": open(sys.argv[1]).read(),
                  "client_email": "fcm-sender@mowdeck-dev.iam.gserviceaccount.com",
                  "token_uri": "https://fcm-sandbox:8445/token"}, indent=2))
PY
  fi
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["private_key"], end="")' \
    "$dir/fcm-service-account.json" | openssl pkey -pubout -out "$dir/fcm-key.pub.pem"
  chmod 644 "$dir/apns-key.pub.pem" "$dir/fcm-key.pub.pem"
  [ -e "$dir/ntfy-token" ] || printf 'tk_%s' "$(openssl rand -hex 15)" | put ntfy-token
fi

if [ ${#made[@]} -gt 0 ]; then
  echo "make-secrets: made ${made[*]} in $dir" >&2
fi
missing=()
[ -e "$dir/apns-key.p8" ] || missing+=("apns-key.p8 (the team's APNs key, from the Apple developer account)")
[ -e "$dir/fcm-service-account.json" ] \
  || missing+=("fcm-service-account.json (Firebase console; only with --profile fcm)")
[ -e "$dir/ntfy-token" ] || missing+=("ntfy-token (the ntfy server's token, or empty; only with --profile ntfy)")
for file in "${missing[@]}"; do echo "make-secrets: still to add by hand: $dir/$file" >&2; done

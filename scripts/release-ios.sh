#!/usr/bin/env bash
# Builds the iOS app with its Notification Service Extension, signs both for the App Store,
# each with its own provisioning profile, and packages the .ipa the TestFlight workflow uploads
# (docs/mobile-apps.md, ADR 0038). Runs on a Mac with Xcode, after `xcodegen generate`.
#
#   scripts/release-ios.sh [--project PATH] [--scheme NAME] [--output DIR] [--build-number N]
#
#   --project       the generated Xcode project (default apps/mobile/ios/Mowdeck.xcodeproj)
#   --scheme        the scheme to archive (default Mowdeck)
#   --output        where Mowdeck.ipa is written (default .local/ios-release)
#   --build-number  CFBundleVersion stamped into the app and the extension before signing
#                   (App Store Connect needs a new one per upload); default: the Info.plists'
#
# Secrets, from the environment (the files as base64, see docs/mobile-apps.md):
#   APPLE_PROFILE_IOS_APP_BASE64            the app's App Store provisioning profile
#   APPLE_PROFILE_IOS_NOTIFICATION_BASE64   the extension's App Store provisioning profile
#   APPLE_CERTIFICATE_P12_BASE64            the Apple Distribution certificate with its key
#   APPLE_CERTIFICATE_PASSWORD              the .p12's password
#
# Steps: every secret is checked before anything runs; both profiles are decoded and must be
# App Store profiles (get-task-allow false) of one team; the certificate goes into a throwaway
# keychain; xcodebuild archives with signing off; the .appex is found in the .app's PlugIns;
# signing goes inside out: nested frameworks, then the extension with its own profile and an
# empty entitlement set plus the profile's identity keys, then the app with its profile's
# identity keys and aps-environment; both signatures are read back and get-task-allow must be
# false in each. Exits 0 with the .ipa written, 1 with one line naming what failed, 2 on
# misuse.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="$root/apps/mobile/ios/Mowdeck.xcodeproj"
scheme="Mowdeck"
output="$root/.local/ios-release"
build_number=""

# The bundle ids the two profiles must be for: the Info.plists' (checked by
# scripts/ios_release_check.py), read here so that there is one source.
app_plist="$root/apps/mobile/ios/App/Mowdeck/Info.plist"
extension_plist="$root/apps/mobile/ios/App/NotificationService/Info.plist"
extension_name="NotificationService.appex"
# Entitlements the app has besides the identity keys, each taken from the app's profile: the
# keys of apps/mobile/ios/App/Mowdeck/Mowdeck.entitlements (the release test checks they agree).
app_capabilities=(aps-environment)

usage() {
  sed -n '6,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}
misuse() {
  echo "release-ios: $1" >&2
  sed -n '6p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}
fail() {
  echo "release-ios: $1" >&2
  exit 1
}

while (($# > 0)); do
  case "$1" in
    --project | --scheme | --output | --build-number)
      (($# >= 2)) || misuse "$1 needs a value"
      case "$1" in
        --project) project="$2" ;;
        --scheme) scheme="$2" ;;
        --output) output="$2" ;;
        --build-number) build_number="$2" ;;
      esac
      shift 2
      ;;
    -h | --help) usage; exit 0 ;;
    *) misuse "unknown option: $1" ;;
  esac
done
if [[ -n $build_number && ! $build_number =~ ^[0-9]+(\.[0-9]+){0,2}$ ]]; then
  misuse "--build-number $build_number is not 1 to 3 period-separated integers"
fi

# Every secret before any tool runs: a missing one fails in a second, not after the build.
missing=0
for name in APPLE_PROFILE_IOS_APP_BASE64 APPLE_PROFILE_IOS_NOTIFICATION_BASE64 \
  APPLE_CERTIFICATE_P12_BASE64 APPLE_CERTIFICATE_PASSWORD; do
  if [[ -z ${!name:-} ]]; then
    echo "release-ios: $name is not set (see docs/mobile-apps.md)" >&2
    missing=$((missing + 1))
  fi
done
((missing == 0)) || exit 1

for tool in security codesign xcodebuild plutil base64 openssl zip; do
  command -v "$tool" >/dev/null || fail "$tool is not on PATH (a Mac with Xcode is needed)"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/release-ios.XXXXXX")"
keychain=""
cleanup() {
  if [[ -n $keychain ]]; then security delete-keychain "$keychain" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# plist_value FILE KEYPATH: the value (strings as they are, booleans as true/false), or nothing
# when the key is absent.
plist_value() {
  plutil -extract "$2" raw -o - "$1" 2>/dev/null || true
}

# --- The profiles -------------------------------------------------------------------------

# decode_profile VARIABLE NAME: writes $work/NAME.mobileprovision and its plist
# $work/NAME.plist (security cms -D reads the CMS envelope Apple signs profiles in).
decode_profile() {
  printf '%s' "${!1}" | base64 --decode >"$work/$2.mobileprovision" 2>/dev/null \
    || fail "$1 is not base64"
  security cms -D -i "$work/$2.mobileprovision" -o "$work/$2.plist" >/dev/null 2>&1 \
    || fail "$1 is not a provisioning profile (security cms -D cannot read it)"
}

decode_profile APPLE_PROFILE_IOS_APP_BASE64 app
decode_profile APPLE_PROFILE_IOS_NOTIFICATION_BASE64 extension

team="$(plist_value "$work/app.plist" TeamIdentifier.0)"
[[ $team =~ ^[A-Z0-9]{10}$ ]] || fail "APPLE_PROFILE_IOS_APP_BASE64 has no team identifier"
app_id="$(plist_value "$app_plist" CFBundleIdentifier)"
extension_id="$(plist_value "$extension_plist" CFBundleIdentifier)"

# check_profile VARIABLE NAME BUNDLE_ID: an App Store profile of $team for BUNDLE_ID.
check_profile() {
  local variable="$1" plist="$work/$2.plist" bundle_id="$3" value
  value="$(plist_value "$plist" TeamIdentifier.0)"
  [[ $value == "$team" ]] \
    || fail "$variable is for team $value, APPLE_PROFILE_IOS_APP_BASE64 for $team: both must be one team's"
  value="$(plist_value "$plist" Entitlements.application-identifier)"
  [[ $value == "$team.$bundle_id" ]] \
    || fail "$variable is for $value, not $team.$bundle_id"
  value="$(plist_value "$plist" Entitlements.get-task-allow)"
  [[ $value == false ]] \
    || fail "$variable has get-task-allow ${value:-missing}: it is not an App Store profile (App Store Connect refuses get-task-allow true)"
  if [[ -n "$(plist_value "$plist" ProvisionedDevices.0)" ]]; then
    fail "$variable lists devices: it is a development or ad hoc profile, not an App Store one"
  fi
}

check_profile APPLE_PROFILE_IOS_APP_BASE64 app "$app_id"
check_profile APPLE_PROFILE_IOS_NOTIFICATION_BASE64 extension "$extension_id"
for capability in "${app_capabilities[@]}"; do
  [[ -n "$(plist_value "$work/app.plist" "Entitlements.$capability")" ]] \
    || fail "APPLE_PROFILE_IOS_APP_BASE64 has no $capability: enable that capability on the App ID $app_id and download the profile again"
done

# entitlements NAME FILE [KEY...]: the signature's entitlements for a bundle signed with the
# profile NAME: the identity keys (application-identifier, team, get-task-allow, and
# beta-reports-active when the profile has it, which TestFlight uses), plus each KEY with the
# profile's value. Nothing else: whatever else a profile allows is not taken.
entitlements() {
  local plist="$work/$1.plist" file="$2" key value
  shift 2
  local pairs=(
    "application-identifier" "$(plist_value "$plist" Entitlements.application-identifier)"
    "com.apple.developer.team-identifier" "$team"
    "get-task-allow" "false"
  )
  value="$(plist_value "$plist" Entitlements.beta-reports-active)"
  [[ -z $value ]] || pairs+=("beta-reports-active" "$value")
  for key in "$@"; do
    pairs+=("$key" "$(plist_value "$plist" "Entitlements.$key")")
  done
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">'
    echo '<plist version="1.0">'
    echo '<dict>'
    local i
    for ((i = 0; i < ${#pairs[@]}; i += 2)); do
      key="${pairs[i]}" value="${pairs[i + 1]}"
      # Profiles hold identifiers and words only; anything else would need XML escaping.
      [[ $value =~ ^[A-Za-z0-9.*-]+$ ]] || fail "profile $1: unexpected value for $key: $value"
      printf '\t<key>%s</key>\n' "$key"
      case "$value" in
        true | false) printf '\t<%s/>\n' "$value" ;;
        *) printf '\t<string>%s</string>\n' "$value" ;;
      esac
    done
    echo '</dict>'
    echo '</plist>'
  } >"$file"
  plutil -lint "$file" >/dev/null || fail "could not write the entitlements $file"
}

entitlements extension "$work/extension.entitlements"
entitlements app "$work/app.entitlements" "${app_capabilities[@]}"

# --- The certificate, in a keychain of its own ----------------------------------------------

keychain="$work/release.keychain-db"
keychain_password="$(openssl rand -hex 24)"
printf '%s' "$APPLE_CERTIFICATE_P12_BASE64" | base64 --decode >"$work/certificate.p12" 2>/dev/null \
  || fail "APPLE_CERTIFICATE_P12_BASE64 is not base64"
security create-keychain -p "$keychain_password" "$keychain"
security set-keychain-settings -lut 21600 "$keychain"
security unlock-keychain -p "$keychain_password" "$keychain"
security import "$work/certificate.p12" -k "$keychain" -P "$APPLE_CERTIFICATE_PASSWORD" \
  -f pkcs12 -t agg -T /usr/bin/codesign >/dev/null \
  || fail "APPLE_CERTIFICATE_P12_BASE64 could not be imported (wrong APPLE_CERTIFICATE_PASSWORD?)"
# codesign may use the key without a prompt.
security set-key-partition-list -S apple-tool:,apple:,codesign: -s -k "$keychain_password" \
  "$keychain" >/dev/null
# On the search list, so that codesign finds the certificate's chain; deleted at exit.
searched=()
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  line="${line%\"}" line="${line#\"}"
  [[ -z $line ]] || searched+=("$line")
done < <(security list-keychains -d user)
# (${a[@]+...}: an empty array under set -u in the bash 3.2 macOS ships.)
security list-keychains -d user -s "$keychain" ${searched[@]+"${searched[@]}"}

# The Apple Distribution identity of the profiles' team, by its SHA-1.
identity=""
while IFS= read -r line; do
  if [[ $line =~ ^[[:space:]]*[0-9]+\)[[:space:]]+([0-9A-F]{40})[[:space:]]+\"((Apple|iPhone)\ Distribution:.*\($team\))\"$ ]]; then
    identity="${BASH_REMATCH[1]}"
    identity_name="${BASH_REMATCH[2]}"
    break
  fi
done < <(security find-identity -v -p codesigning "$keychain")
[[ -n $identity ]] \
  || fail "APPLE_CERTIFICATE_P12_BASE64 holds no Apple Distribution identity of team $team"

# --- The build ------------------------------------------------------------------------------

archive="$work/Mowdeck.xcarchive"
xcodebuild archive -project "$project" -scheme "$scheme" -configuration Release \
  -destination "generic/platform=iOS" -archivePath "$archive" CODE_SIGNING_ALLOWED=NO \
  >"$work/xcodebuild.log" 2>&1 || {
  tail -n 40 "$work/xcodebuild.log" >&2
  fail "xcodebuild archive failed (last lines above)"
}

apps=()
for candidate in "$archive"/Products/Applications/*.app; do
  if [[ -d $candidate ]]; then apps+=("$candidate"); fi
done
[[ ${#apps[@]} -eq 1 ]] \
  || fail "the archive holds ${#apps[@]} apps in Products/Applications, expected one"
payload="$work/ipa/Payload"
mkdir -p "$payload"
cp -R "${apps[0]}" "$payload/"
app="$payload/$(basename "${apps[0]}")"

extensions=()
for candidate in "$app"/PlugIns/*.appex; do
  if [[ -d $candidate ]]; then extensions+=("$(basename "$candidate")"); fi
done
[[ ${extensions[*]:-} == "$extension_name" ]] \
  || fail "$(basename "$app")/PlugIns holds [${extensions[*]:-}], expected exactly $extension_name (is the extension embedded?)"
appex="$app/PlugIns/$extension_name"

for bundle in "$app" "$appex"; do
  if [[ -n $build_number ]]; then
    plutil -replace CFBundleVersion -string "$build_number" "$bundle/Info.plist"
  fi
done
[[ "$(plist_value "$app/Info.plist" CFBundleIdentifier)" == "$app_id" ]] \
  || fail "the built app's bundle id is not $app_id"
[[ "$(plist_value "$appex/Info.plist" CFBundleIdentifier)" == "$extension_id" ]] \
  || fail "the built extension's bundle id is not $extension_id"

# --- Signing, inside out --------------------------------------------------------------------

cp "$work/app.mobileprovision" "$app/embedded.mobileprovision"
cp "$work/extension.mobileprovision" "$appex/embedded.mobileprovision"

# sign PATH [ENTITLEMENTS]
sign() {
  local arguments=(--force --sign "$identity" --keychain "$keychain" --generate-entitlement-der)
  [[ -z ${2:-} ]] || arguments+=(--entitlements "$2")
  codesign "${arguments[@]}" "$1" >/dev/null 2>&1 || fail "codesign could not sign $(basename "$1")"
}

# Nested code first (none today: the Swift runtime is in iOS, the package links statically).
for bundle in "$appex" "$app"; do
  for nested in "$bundle"/Frameworks/*.framework "$bundle"/Frameworks/*.dylib; do
    if [[ -e $nested ]]; then sign "$nested"; fi
  done
done
sign "$appex" "$work/extension.entitlements"
sign "$app" "$work/app.entitlements"

# --- Verification ---------------------------------------------------------------------------

codesign --verify --deep --strict "$app" >/dev/null 2>&1 \
  || fail "codesign --verify refuses $(basename "$app")"
for bundle in "$appex" "$app"; do
  name="$(basename "$bundle")"
  signed="$work/signed-$name.plist"
  codesign -d --entitlements - --xml "$bundle" >"$signed" 2>/dev/null \
    || fail "codesign cannot show the entitlements of $name"
  value="$(plist_value "$signed" get-task-allow)"
  [[ $value == false ]] \
    || fail "$name is signed with get-task-allow ${value:-missing}, App Store Connect accepts false only"
  profile="$work/app.plist"
  if [[ $bundle == "$appex" ]]; then profile="$work/extension.plist"; fi
  [[ "$(plist_value "$signed" application-identifier)" == "$(plist_value "$profile" Entitlements.application-identifier)" ]] \
    || fail "$name is not signed for its profile's application identifier"
done

# --- The .ipa -------------------------------------------------------------------------------

mkdir -p "$output"
output="$(cd "$output" && pwd)"
rm -f "$output/Mowdeck.ipa"
(cd "$work/ipa" && zip -qry "$output/Mowdeck.ipa" Payload)
version="$(plist_value "$app/Info.plist" CFBundleShortVersionString)"
build="$(plist_value "$app/Info.plist" CFBundleVersion)"
echo "release-ios: $output/Mowdeck.ipa: $app_id $version ($build) with $extension_id," \
  "signed by $identity_name, get-task-allow false in both"

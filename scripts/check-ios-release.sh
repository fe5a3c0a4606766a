#!/usr/bin/env bash
# Release check for the iOS app and its Notification Service Extension: the extension's
# Info.plist must declare the notification-service extension point and principal class, its
# bundle id must extend the app's, and its version and build number must equal the app's (App
# Store Connect rejects an upload where they differ).
#
#   scripts/check-ios-release.sh [--app PLIST] [--extension PLIST]
#   scripts/check-ios-release.sh --self-test
#
# Exits 0 when every check passes, 1 with one line per problem otherwise, 2 on usage errors.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
app_plist="$root/apps/mobile/ios/App/Mowdeck/Info.plist"
extension_plist="$root/apps/mobile/ios/App/NotificationService/Info.plist"
self_test=false

usage() {
  sed -n '7,8p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}

while (($# > 0)); do
  case "$1" in
    --app) (($# >= 2)) || usage; app_plist="$2"; shift 2 ;;
    --extension) (($# >= 2)) || usage; extension_plist="$2"; shift 2 ;;
    --self-test) self_test=true; shift ;;
    -h | --help) usage ;;
    *) echo "check-ios-release: unknown argument: $1" >&2; usage ;;
  esac
done

command -v python3 >/dev/null || { echo "check-ios-release: python3 is needed" >&2; exit 2; }

# The checks, in Python for plistlib, which reads XML and binary plists alike.
check() {
  python3 - "$1" "$2" <<'PY'
import plistlib
import re
import sys

APP_ID = "app.mowdeck.mobile"
EXTENSION_POINT = "com.apple.usernotifications.service"
PRINCIPAL_CLASS = "$(PRODUCT_MODULE_NAME).NotificationService"
# App Store Connect accepts one to three period-separated integers for both numbers.
VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
BUNDLE_ID = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*")

problems = []


def load(path, what):
    try:
        with open(path, "rb") as f:
            value = plistlib.load(f)
    except (OSError, plistlib.InvalidFileException, ValueError) as error:
        problems.append(f"{what} Info.plist {path}: cannot be read: {error}")
        return None
    if not isinstance(value, dict):
        problems.append(f"{what} Info.plist {path}: not a dictionary")
        return None
    return value


def string(plist, key, what):
    value = plist.get(key)
    if not isinstance(value, str) or not value:
        problems.append(f"{what}: {key} is missing or not a string")
        return None
    if "$(" in value:
        problems.append(
            f"{what}: {key} is a build setting ({value}); the release check needs it literal")
        return None
    return value


app_path, extension_path = sys.argv[1:3]
app = load(app_path, "app")
extension = load(extension_path, "extension")

if app is not None and extension is not None:
    app_id = string(app, "CFBundleIdentifier", "app")
    extension_id = string(extension, "CFBundleIdentifier", "extension")
    if app_id is not None and app_id != APP_ID:
        problems.append(f"app: CFBundleIdentifier is {app_id}, expected {APP_ID}")
    if app_id is not None and extension_id is not None:
        suffix = extension_id[len(app_id) + 1:]
        if not extension_id.startswith(app_id + ".") or not BUNDLE_ID.fullmatch(suffix):
            problems.append(
                f"extension: CFBundleIdentifier {extension_id} does not extend the app's "
                f"({app_id}.<name>)")

    numbers = [("CFBundleShortVersionString", "version"), ("CFBundleVersion", "build number")]
    for key, label in numbers:
        app_value = string(app, key, "app")
        extension_value = string(extension, key, "extension")
        for what, value in [("app", app_value), ("extension", extension_value)]:
            if value is not None and not VERSION.fullmatch(value):
                problems.append(f"{what}: {key} {value!r} is not 1 to 3 period-separated integers")
        if app_value is not None and extension_value is not None and app_value != extension_value:
            problems.append(
                f"{label} mismatch: app {key} is {app_value}, extension's is {extension_value}")

    package_type = extension.get("CFBundlePackageType")
    if package_type != "XPC!":
        problems.append(f"extension: CFBundlePackageType is {package_type!r}, expected 'XPC!'")
    attributes = extension.get("NSExtension")
    if not isinstance(attributes, dict):
        problems.append("extension: NSExtension is missing or not a dictionary")
    else:
        point = attributes.get("NSExtensionPointIdentifier")
        if point != EXTENSION_POINT:
            problems.append(
                f"extension: NSExtensionPointIdentifier is {point!r}, expected {EXTENSION_POINT!r}")
        principal = attributes.get("NSExtensionPrincipalClass")
        if principal != PRINCIPAL_CLASS:
            problems.append(
                f"extension: NSExtensionPrincipalClass is {principal!r}, "
                f"expected {PRINCIPAL_CLASS!r}")

for problem in problems:
    print(f"check-ios-release: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-ios-release: ok ({app_path}, {extension_path})")
PY
}

# Copies the real plists, breaks them one way at a time, and checks that each break fails
# with its own message, and that the unbroken copies pass.
run_self_test() {
  local dir failures=0
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' RETURN

  # case NAME EXPECTED_TEXT PYTHON: PYTHON edits `app` and `ext` (dicts); the check must fail
  # and print EXPECTED_TEXT.
  case_() {
    local name="$1" expected="$2" edit="$3" output status=0
    cp "$app_plist" "$dir/app.plist"
    cp "$extension_plist" "$dir/ext.plist"
    python3 - "$dir/app.plist" "$dir/ext.plist" "$edit" <<'PY'
import plistlib, sys
app_path, ext_path, edit = sys.argv[1:4]
app = plistlib.load(open(app_path, "rb"))
ext = plistlib.load(open(ext_path, "rb"))
exec(edit)
plistlib.dump(app, open(app_path, "wb"))
plistlib.dump(ext, open(ext_path, "wb"))
PY
    output="$(check "$dir/app.plist" "$dir/ext.plist" 2>&1)" || status=$?
    if [[ $status != 1 || $output != *"$expected"* ]]; then
      echo "self-test FAIL: $name: exit $status, output: $output" >&2
      failures=$((failures + 1))
    else
      echo "self-test ok: $name"
    fi
  }

  local output
  if output="$(check "$app_plist" "$extension_plist" 2>&1)"; then
    echo "self-test ok: the real plists pass"
  else
    echo "self-test FAIL: the real plists do not pass: $output" >&2
    failures=$((failures + 1))
  fi

  case_ "wrong extension point" "NSExtensionPointIdentifier" \
    'ext["NSExtension"]["NSExtensionPointIdentifier"] = "com.apple.widgetkit-extension"'
  case_ "missing extension point" "NSExtensionPointIdentifier" \
    'del ext["NSExtension"]["NSExtensionPointIdentifier"]'
  case_ "wrong principal class" "NSExtensionPrincipalClass" \
    'ext["NSExtension"]["NSExtensionPrincipalClass"] = "NotificationService"'
  case_ "missing NSExtension" "NSExtension is missing" 'del ext["NSExtension"]'
  case_ "wrong package type" "CFBundlePackageType" 'ext["CFBundlePackageType"] = "APPL"'
  case_ "extension id not under the app's" "does not extend" \
    'ext["CFBundleIdentifier"] = "app.mowdeck.NotificationService"'
  case_ "extension id only shares a prefix" "does not extend" \
    'ext["CFBundleIdentifier"] = "app.mowdeck.mobileX.NotificationService"'
  case_ "extension id equal to the app's" "does not extend" \
    'ext["CFBundleIdentifier"] = "app.mowdeck.mobile"'
  case_ "extension id with an empty name" "does not extend" \
    'ext["CFBundleIdentifier"] = "app.mowdeck.mobile."'
  case_ "app id changed" "expected app.mowdeck.mobile" \
    'app["CFBundleIdentifier"] = "app.mowdeck.other"'
  case_ "version mismatch" "version mismatch" 'ext["CFBundleShortVersionString"] = "1.0.1"'
  case_ "build number mismatch" "build number mismatch" 'app["CFBundleVersion"] = "2"'
  case_ "missing build number" "CFBundleVersion is missing" 'del ext["CFBundleVersion"]'
  case_ "missing version" "CFBundleShortVersionString is missing" \
    'del app["CFBundleShortVersionString"]'
  case_ "version not numeric" "not 1 to 3 period-separated integers" \
    'app["CFBundleShortVersionString"] = ext["CFBundleShortVersionString"] = "1.0-beta"'
  # shellcheck disable=SC2016 # the $(...) is the literal text under test
  case_ "version as a build setting" "build setting" \
    'ext["CFBundleShortVersionString"] = "$(MARKETING_VERSION)"'
  case_ "bundle id not a string" "CFBundleIdentifier is missing or not a string" \
    'ext["CFBundleIdentifier"] = 7'

  # A file that is not a plist, and one that is not there.
  local status=0
  cp "$app_plist" "$dir/app.plist"
  echo "not a plist" >"$dir/ext.plist"
  output="$(check "$dir/app.plist" "$dir/ext.plist" 2>&1)" || status=$?
  if [[ $status == 1 && $output == *"cannot be read"* ]]; then
    echo "self-test ok: unreadable extension plist"
  else
    echo "self-test FAIL: unreadable extension plist: exit $status, output: $output" >&2
    failures=$((failures + 1))
  fi
  status=0
  output="$(bash "${BASH_SOURCE[0]}" --app "$dir/missing.plist" \
    --extension "$extension_plist" 2>&1)" || status=$?
  if [[ $status == 1 && $output == *"cannot be read"* ]]; then
    echo "self-test ok: missing app plist (through the command line)"
  else
    echo "self-test FAIL: missing app plist: exit $status, output: $output" >&2
    failures=$((failures + 1))
  fi

  if ((failures > 0)); then
    echo "check-ios-release self-test: $failures failure(s)" >&2
    return 1
  fi
  echo "check-ios-release self-test: all passed"
}

if $self_test; then
  run_self_test
else
  check "$app_plist" "$extension_plist"
fi

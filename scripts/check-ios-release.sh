#!/usr/bin/env bash
# The iOS release checks that run on Linux (ADR 0038), in the order CI runs them:
#   1. scripts/ios_release_check.py: the XcodeGen spec and both Info.plists;
#   2. the tests under scripts/tests: the release check against broken specs, plists and built
#      bundles, scripts/release-ios.sh against stand-ins for Apple's tools, and the extension's
#      Linux type-check against deliberate typos (skipped without a Swift 6 toolchain), and the
#      workflows' wiring;
#   3. the GitHub workflows against the workflow schema check-jsonschema bundles.
# It holds no check of its own. The Python tools come from .local/venv (scripts/setup.sh) when
# it exists, else from PATH (the pull-request workflow pip-installs them).
#
#   scripts/check-ios-release.sh [--help]
#
# Exits 0 when everything passes, 1 when something fails, 2 on usage errors.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

case "${1:-}" in
  "") ;;
  -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "check-ios-release: unknown argument: $1 (see --help)" >&2; exit 2 ;;
esac

if [[ -x .local/venv/bin/python3 ]]; then
  export PATH="$PWD/.local/venv/bin:$PATH"
fi
if ! command -v check-jsonschema >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
  echo "check-ios-release: check-jsonschema and PyYAML are needed: run scripts/setup.sh" \
    "(or pip install -r scripts/requirements-checks.txt)" >&2
  exit 1
fi

python3 scripts/ios_release_check.py
python3 -m unittest discover -s scripts/tests
check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/testflight.yml \
  .github/workflows/ios-release-check.yml

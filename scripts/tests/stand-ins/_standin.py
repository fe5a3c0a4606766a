"""Shared by the stand-ins for Apple's command-line tools (security, codesign, xcodebuild,
plutil) that scripts/tests/test_release_ios.py puts first on PATH. Each appends its argv, as
one JSON line, to the file named by STAND_IN_LOG, then behaves just enough like the real tool
for scripts/release-ios.sh. STAND_IN_STATE is a directory they may keep state in."""

import json
import os
import plistlib
import sys


def record(tool):
    with open(os.environ["STAND_IN_LOG"], "a") as log:
        log.write(json.dumps([tool] + sys.argv[1:]) + "\n")


def state_dir():
    path = os.environ["STAND_IN_STATE"]
    os.makedirs(path, exist_ok=True)
    return path


def load_plist(path):
    with open(path, "rb") as f:
        return plistlib.load(f)


def die(message, status=1):
    print(message, file=sys.stderr)
    sys.exit(status)

"""The Linux type-check of the iOS extension (ADR 0038) can fail.

NotificationServiceKit's Package.swift, on Linux only, compiles
apps/mobile/ios/App/NotificationService/NotificationService.swift (through a symlink) against a
stand-in module named UserNotifications. These tests check that the symlink is the real file, and
that the same compiler, given the modules that build made, passes the real file and refuses a
copy with a typo or with an override whose signature is not Apple's: so a passing build means
the check ran, not that the file compiled to nothing (it is wrapped in
`#if canImport(UserNotifications)`).

Run: python3 -m unittest discover -s scripts/tests (skipped without a Swift 6 toolchain on
PATH; some seconds once the package is built).
"""

import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "apps/mobile/ios/NotificationServiceKit"
SOURCE = ROOT / "apps/mobile/ios/App/NotificationService/NotificationService.swift"
LINK = PACKAGE / "LinuxTypeCheck/NotificationServiceExtension/NotificationService.swift"

OVERRIDE = "withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void"
# The same method under a label Apple's class does not have: the body still compiles, the
# override does not.
NOT_APPLES = "withCompletionHandler contentHandler: @escaping (UNNotificationContent) -> Void"


def swift_major():
    if not shutil.which("swift"):
        return 0
    version = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout
    match = re.search(r"Swift version (\d+)", version)
    return int(match.group(1)) if match else 0


@unittest.skipUnless(swift_major() >= 6, "no Swift 6 toolchain on PATH")
class ExtensionTypeCheckTests(unittest.TestCase):
    modules: Path

    @classmethod
    def setUpClass(cls):
        # Incremental: after `swift test --package-path ...` this only checks that nothing changed.
        subprocess.run(
            ["swift", "build", "--package-path", str(PACKAGE),
             "--target", "NotificationServiceExtension"],
            check=True, stdout=subprocess.DEVNULL)
        bin_path = subprocess.run(
            ["swift", "build", "--package-path", str(PACKAGE), "--show-bin-path"],
            check=True, capture_output=True, text=True).stdout.strip()
        # SwiftPM 6 puts .swiftmodule files under Modules/, older versions beside the objects.
        cls.modules = next(
            (p for p in (Path(bin_path) / "Modules", Path(bin_path))
             if (p / "UserNotifications.swiftmodule").exists()), None)
        if cls.modules is None:
            raise AssertionError(f"no UserNotifications.swiftmodule under {bin_path}")

    def typecheck(self, text):
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "NotificationService.swift"
            path.write_text(text)
            return subprocess.run(
                ["swiftc", "-typecheck", "-swift-version", "6", "-I", str(self.modules),
                 str(path)],
                capture_output=True, text=True)

    def test_the_package_compiles_the_real_file(self):
        self.assertTrue(LINK.is_symlink(), f"{LINK} should be a symlink")
        self.assertEqual(LINK.resolve(), SOURCE.resolve())

    def test_the_real_file_passes(self):
        result = self.typecheck(SOURCE.read_text())
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_typo_fails(self):
        text = SOURCE.read_text()
        self.assertIn("contentHandler(original)", text)
        result = self.typecheck(text.replace("contentHandler(original)", "contentHandler(orignal)"))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("cannot find 'orignal' in scope", result.stderr)

    def test_an_override_that_is_not_apples_fails(self):
        text = SOURCE.read_text()
        self.assertIn(OVERRIDE, text)
        result = self.typecheck(text.replace(OVERRIDE, NOT_APPLES))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("do not match those of overridden method", result.stderr)


if __name__ == "__main__":
    unittest.main()

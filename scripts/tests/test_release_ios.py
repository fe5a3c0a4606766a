"""scripts/release-ios.sh, run on Linux with stand-ins for security, codesign, xcodebuild and
plutil first on PATH (scripts/tests/stand-ins). Each stand-in records its argv, so the tests
check what the script asks of Apple's tools, in which order, with which arguments, and that it
stops early on a missing secret, a development profile, or a signature with get-task-allow.
What the real tools then do is proved on a Mac only (docs/mobile-apps.md).

Run: python3 -m unittest discover -s scripts/tests
"""

import base64
import json
import os
import plistlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/release-ios.sh"
CHECK = ROOT / "scripts/ios_release_check.py"
STAND_INS = Path(__file__).resolve().parent / "stand-ins"
APP_ENTITLEMENTS = ROOT / "apps/mobile/ios/App/Mowdeck/Mowdeck.entitlements"

TEAM = "ABCDE12345"
APP_ID = "app.mowdeck.mobile"
EXTENSION_ID = "app.mowdeck.mobile.NotificationService"
IDENTITY = "0123456789ABCDEF0123456789ABCDEF01234567"
SECRETS = ["APPLE_PROFILE_IOS_APP_BASE64", "APPLE_PROFILE_IOS_NOTIFICATION_BASE64",
           "APPLE_CERTIFICATE_P12_BASE64", "APPLE_CERTIFICATE_PASSWORD"]


def profile(bundle_id, team=TEAM, get_task_allow=False, devices=None, extra=None):
    """An App Store provisioning profile's content, as `security cms -D` prints it."""
    entitlements = {
        "application-identifier": f"{team}.{bundle_id}",
        "com.apple.developer.team-identifier": team,
        "get-task-allow": get_task_allow,
        "beta-reports-active": True,
        "keychain-access-groups": [f"{team}.*"],
        **(extra or {}),
    }
    content = {
        "Name": f"Mowdeck {bundle_id} App Store",
        "UUID": "5D1E5E4C-0000-4000-8000-000000000001",
        "TeamIdentifier": [team],
        "Entitlements": entitlements,
    }
    if devices:
        content["ProvisionedDevices"] = devices
    return plistlib.dumps(content)


def b64(data):
    return base64.b64encode(data).decode()


class ReleaseScriptTests(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="release-ios-test."))
        self.addCleanup(shutil.rmtree, self.directory)
        self.log = self.directory / "calls.jsonl"
        self.output = self.directory / "out"
        self.app_profile = profile(APP_ID, extra={"aps-environment": "production"})
        self.extension_profile = profile(EXTENSION_ID)
        self.env = {
            # The stand-ins run on this interpreter (`env python3`), found before any shim.
            "PATH": f"{STAND_INS}:{Path(sys.executable).parent}:{os.environ['PATH']}",
            "HOME": str(self.directory),
            "TMPDIR": str(self.directory),
            # No __pycache__ beside the stand-ins in the work tree.
            "PYTHONDONTWRITEBYTECODE": "1",
            "STAND_IN_LOG": str(self.log),
            "STAND_IN_STATE": str(self.directory / "state"),
            "STAND_IN_REPO": str(ROOT),
            "APPLE_CERTIFICATE_P12_BASE64": b64(b"not really a p12"),
            "APPLE_CERTIFICATE_PASSWORD": "secret",
        }

    def run_script(self, *arguments, **env):
        environment = {
            "APPLE_PROFILE_IOS_APP_BASE64": b64(self.app_profile),
            "APPLE_PROFILE_IOS_NOTIFICATION_BASE64": b64(self.extension_profile),
            **self.env, **env,
        }
        environment = {k: v for k, v in environment.items() if v is not None}
        return subprocess.run(
            ["bash", str(SCRIPT), "--output", str(self.output), *arguments],
            env=environment, capture_output=True, text=True, timeout=60)

    def calls(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def index(self, predicate, what):
        for i, call in enumerate(self.calls()):
            if predicate(call):
                return i
        self.fail(f"no call {what} in {self.calls()}")

    def signing(self, suffix):
        """The codesign call that signs the bundle whose path ends with `suffix`."""
        return self.index(lambda c: c[0] == "codesign" and "--sign" in c and c[-1].endswith(suffix),
                          f"codesign --sign ...{suffix}")

    # --- Usage ---------------------------------------------------------------------------

    def test_help(self):
        result = self.run_script("--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("--build-number", result.stdout)

    def test_misuse_exits_2_naming_the_option(self):
        for arguments, text in [(["--colour"], "unknown option: --colour"),
                                (["--scheme"], "--scheme needs a value"),
                                (["--build-number", "12a"], "--build-number 12a")]:
            with self.subTest(arguments=arguments):
                # The usage check comes first: --output is parsed before the bad option.
                result = self.run_script(*arguments)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(text, result.stderr)
                self.assertEqual(self.calls(), [])

    # --- Secrets -------------------------------------------------------------------------

    def test_missing_extension_profile_fails_at_once_naming_it(self):
        result = self.run_script(APPLE_PROFILE_IOS_NOTIFICATION_BASE64=None)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(
            result.stderr.strip(),
            "release-ios: APPLE_PROFILE_IOS_NOTIFICATION_BASE64 is not set (see docs/mobile-apps.md)")
        self.assertEqual(self.calls(), [], "no tool may run before the secrets are checked")

    def test_missing_app_profile_fails_at_once_naming_it(self):
        result = self.run_script(APPLE_PROFILE_IOS_APP_BASE64="")
        self.assertEqual(result.returncode, 1)
        self.assertIn("APPLE_PROFILE_IOS_APP_BASE64 is not set", result.stderr)
        self.assertNotIn("NOTIFICATION", result.stderr)
        self.assertEqual(self.calls(), [])

    def test_every_missing_secret_is_named(self):
        result = self.run_script(**{name: None for name in SECRETS})
        self.assertEqual(result.returncode, 1)
        for name in SECRETS:
            self.assertIn(f"{name} is not set", result.stderr)
        self.assertEqual(self.calls(), [])

    # --- A release -----------------------------------------------------------------------

    def test_a_release_signs_inside_out_and_checks_both_signatures(self):
        result = self.run_script("--build-number", "42")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("get-task-allow false in both", result.stdout)
        calls = self.calls()
        tools = [call[0] for call in calls]

        # Both profiles are read before the build, and the build before any signing.
        profiles = [i for i, c in enumerate(calls) if c[:3] == ["security", "cms", "-D"]]
        self.assertEqual(len(profiles), 2)
        build = tools.index("xcodebuild")
        self.assertLess(max(profiles), build)
        self.assertLess(build, tools.index("codesign"))

        # The certificate goes into a keychain of its own, before the build.
        create = self.index(lambda c: c[:2] == ["security", "create-keychain"], "create-keychain")
        keychain = calls[create][-1]
        imported = self.index(lambda c: c[:2] == ["security", "import"], "security import")
        self.assertIn("-k", calls[imported])
        self.assertEqual(calls[imported][calls[imported].index("-k") + 1], keychain)
        self.assertEqual(calls[imported][calls[imported].index("-P") + 1], "secret")
        self.assertLess(imported, build)
        self.assertEqual(calls[-1], ["security", "delete-keychain", keychain])

        # The archive is built with signing off, for devices, in Release.
        archive = calls[build]
        self.assertEqual(archive[1], "archive")
        for flag, value in [("-scheme", "Mowdeck"), ("-configuration", "Release"),
                            ("-destination", "generic/platform=iOS")]:
            self.assertEqual(archive[archive.index(flag) + 1], value)
        self.assertTrue(archive[archive.index("-project") + 1].endswith(
            "apps/mobile/ios/Mowdeck.xcodeproj"))
        self.assertIn("CODE_SIGNING_ALLOWED=NO", archive)

        # Inside out: the extension, then the app; then both signatures are read back.
        extension = self.signing("Mowdeck.app/PlugIns/NotificationService.appex")
        app = self.signing("/Mowdeck.app")
        self.assertLess(extension, app)
        for i in (extension, app):
            call = calls[i]
            self.assertEqual(call[call.index("--sign") + 1], IDENTITY)
            self.assertEqual(call[call.index("--keychain") + 1], keychain)
            self.assertIn("--force", call)
            self.assertIn("--entitlements", call)
        shown = [c[-1] for c in calls if c[0] == "codesign" and "-d" in c]
        self.assertEqual([Path(p).name for p in shown], ["NotificationService.appex", "Mowdeck.app"])
        self.assertLess(app, min(i for i, c in enumerate(calls) if c[0] == "codesign" and "-d" in c))

        # What went into the .ipa: each bundle has its own profile embedded and the version.
        ipa = self.output / "Mowdeck.ipa"
        with zipfile.ZipFile(ipa) as archive_file:
            names = set(archive_file.namelist())
            prefix = "Payload/Mowdeck.app/"
            self.assertEqual(archive_file.read(prefix + "embedded.mobileprovision"), self.app_profile)
            self.assertEqual(
                archive_file.read(prefix + "PlugIns/NotificationService.appex/embedded.mobileprovision"),
                self.extension_profile)
            for info in (prefix + "Info.plist", prefix + "PlugIns/NotificationService.appex/Info.plist"):
                self.assertEqual(plistlib.loads(archive_file.read(info))["CFBundleVersion"], "42")
            self.assertIn(prefix + "_CodeSignature/CodeResources", names)

        # The release check accepts the .ipa as built.
        check = subprocess.run([sys.executable, str(CHECK), "--bundle", str(ipa)],
                               capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)

    def test_entitlements_are_the_identity_keys_plus_the_apps_capabilities(self):
        result = self.run_script()
        self.assertEqual(result.returncode, 0, result.stderr)
        signed = {}
        for name in ("NotificationService.appex", "Mowdeck.app"):
            with open(self.directory / "state" / f"entitlements-{name}.plist", "rb") as f:
                signed[name] = plistlib.load(f)
        identity = {
            "com.apple.developer.team-identifier": TEAM,
            "get-task-allow": False,
            "beta-reports-active": True,
        }
        self.assertEqual(signed["NotificationService.appex"], {
            **identity, "application-identifier": f"{TEAM}.{EXTENSION_ID}"})
        self.assertEqual(signed["Mowdeck.app"], {
            **identity, "application-identifier": f"{TEAM}.{APP_ID}",
            "aps-environment": "production"})
        # The capabilities the script carries are exactly those the project gives the app.
        with open(APP_ENTITLEMENTS, "rb") as f:
            declared = set(plistlib.load(f))
        self.assertEqual(set(signed["Mowdeck.app"]) - set(identity) - {"application-identifier"},
                         declared)

    def test_a_nested_framework_is_signed_first_without_entitlements(self):
        result = self.run_script(STAND_IN_FRAMEWORK="1")
        self.assertEqual(result.returncode, 0, result.stderr)
        framework = self.signing("Frameworks/Stand.framework")
        self.assertLess(framework, self.signing("NotificationService.appex"))
        self.assertNotIn("--entitlements", self.calls()[framework])

    # --- Refusals ------------------------------------------------------------------------

    def test_a_development_profile_is_refused_before_the_build(self):
        self.extension_profile = profile(EXTENSION_ID, get_task_allow=True)
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("APPLE_PROFILE_IOS_NOTIFICATION_BASE64 has get-task-allow true", result.stderr)
        tools = [c[0] for c in self.calls()]
        self.assertNotIn("xcodebuild", tools)
        self.assertNotIn("codesign", tools)

    def test_a_signature_with_get_task_allow_is_refused(self):
        result = self.run_script(STAND_IN_SIGNS_GET_TASK_ALLOW="1")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(
            result.stderr.strip(),
            "release-ios: NotificationService.appex is signed with get-task-allow true, "
            "App Store Connect accepts false only")
        self.assertFalse((self.output / "Mowdeck.ipa").exists())

    def test_a_profile_with_devices_is_refused(self):
        self.app_profile = profile(APP_ID, devices=["00008030-000000000000002E"],
                                   extra={"aps-environment": "production"})
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("APPLE_PROFILE_IOS_APP_BASE64 lists devices", result.stderr)

    def test_profiles_swapped_are_refused(self):
        self.app_profile, self.extension_profile = self.extension_profile, self.app_profile
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"APPLE_PROFILE_IOS_APP_BASE64 is for {TEAM}.{EXTENSION_ID}, "
                      f"not {TEAM}.{APP_ID}", result.stderr)

    def test_profiles_of_two_teams_are_refused(self):
        self.extension_profile = profile(EXTENSION_ID, team="ZZZZZ99999")
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("one team's", result.stderr)

    def test_an_app_profile_without_push_is_refused(self):
        self.app_profile = profile(APP_ID)
        result = self.run_script()
        self.assertEqual(result.returncode, 1)
        self.assertIn("APPLE_PROFILE_IOS_APP_BASE64 has no aps-environment", result.stderr)

    def test_a_profile_that_is_not_base64_is_refused(self):
        result = self.run_script(APPLE_PROFILE_IOS_APP_BASE64="%%% not base64 %%%")
        self.assertEqual(result.returncode, 1)
        self.assertIn("APPLE_PROFILE_IOS_APP_BASE64 is not base64", result.stderr)

    def test_a_certificate_without_a_distribution_identity_is_refused(self):
        result = self.run_script(
            STAND_IN_IDENTITY=f"Apple Development: Someone (XYZ) ({TEAM})")
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"no Apple Distribution identity of team {TEAM}", result.stderr)
        self.assertNotIn("xcodebuild", [c[0] for c in self.calls()])

    def test_a_wrong_certificate_password_is_named(self):
        result = self.run_script(STAND_IN_IMPORT_FAILS="1")
        self.assertEqual(result.returncode, 1)
        self.assertIn("wrong APPLE_CERTIFICATE_PASSWORD?", result.stderr)
        # The keychain made for it is deleted all the same.
        self.assertEqual(self.calls()[-1][:2], ["security", "delete-keychain"])

    def test_an_app_without_the_extension_is_refused(self):
        result = self.run_script(STAND_IN_NO_APPEX="1")
        self.assertEqual(result.returncode, 1)
        self.assertIn("expected exactly NotificationService.appex", result.stderr)
        self.assertNotIn("codesign", [c[0] for c in self.calls()])

    def test_a_failed_build_shows_its_end(self):
        result = self.run_script(STAND_IN_ARCHIVE_FAILS="1")
        self.assertEqual(result.returncode, 1)
        self.assertIn("cannot find 'orignal' in scope", result.stderr)
        self.assertIn("xcodebuild archive failed", result.stderr)


if __name__ == "__main__":
    unittest.main()

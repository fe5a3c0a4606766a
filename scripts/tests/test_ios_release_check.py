"""scripts/ios_release_check.py against the repository's own sources (they must pass) and
against copies broken one way at a time (each must fail with its own message): the XcodeGen
spec, both Info.plists, and small built bundles (.app trees and .ipa files) the tests make.

Run: python3 -m unittest discover -s scripts/tests
"""

import plistlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts/ios_release_check.py"
IOS = ROOT / "apps/mobile/ios"
APP_PLIST = IOS / "App/Mowdeck/Info.plist"
EXTENSION_PLIST = IOS / "App/NotificationService/Info.plist"


def run_check(*arguments):
    return subprocess.run([sys.executable, str(CHECK), *map(str, arguments)],
                          capture_output=True, text=True)


class CheckTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="ios-release-check-test."))
        self.addCleanup(shutil.rmtree, self.directory)

    def assertFails(self, result, expected):
        self.assertEqual(result.returncode, 1, f"expected a failure, got: {result.stdout}{result.stderr}")
        self.assertIn(expected, result.stderr)


class SourceTests(CheckTestCase):
    """The spec and the two Info.plists, as the repository has them and broken."""

    def setUp(self):
        super().setUp()
        # A copy of apps/mobile/ios with what the spec refers to: the sources, the plists and the
        # package's Package.swift.
        self.ios = self.directory / "ios"
        shutil.copytree(IOS / "App", self.ios / "App")
        (self.ios / "NotificationServiceKit").mkdir()
        shutil.copy(IOS / "NotificationServiceKit/Package.swift", self.ios / "NotificationServiceKit")
        shutil.copy(IOS / "project.yml", self.ios / "project.yml")
        self.spec = yaml.safe_load((IOS / "project.yml").read_text())
        self.app = plistlib.loads(APP_PLIST.read_bytes())
        self.extension = plistlib.loads(EXTENSION_PLIST.read_bytes())

    def check(self):
        (self.ios / "project.yml").write_text(yaml.safe_dump(self.spec))
        (self.ios / "App/Mowdeck/Info.plist").write_bytes(plistlib.dumps(self.app))
        (self.ios / "App/NotificationService/Info.plist").write_bytes(plistlib.dumps(self.extension))
        return run_check("--spec", self.ios / "project.yml",
                         "--app-plist", self.ios / "App/Mowdeck/Info.plist",
                         "--extension-plist", self.ios / "App/NotificationService/Info.plist")

    def test_the_repository_passes(self):
        result = run_check()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("ok", result.stdout)

    def test_an_unchanged_copy_passes(self):
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)

    # --- The spec ---

    def test_spec_without_the_extension_target(self):
        del self.spec["targets"]["NotificationService"]
        self.assertFails(self.check(), "no target NotificationService")

    def test_extension_of_the_wrong_type(self):
        self.spec["targets"]["NotificationService"]["type"] = "framework"
        self.assertFails(self.check(), "has type 'framework', expected 'app-extension'")

    def test_extension_not_for_ios(self):
        self.spec["targets"]["NotificationService"]["platform"] = "macOS"
        self.assertFails(self.check(), "has platform 'macOS'")

    def test_extension_bundle_id_in_the_spec(self):
        settings = self.spec["targets"]["NotificationService"]["settings"]["base"]
        settings["PRODUCT_BUNDLE_IDENTIFIER"] = "app.mowdeck.mobile.Notifications"
        self.assertFails(self.check(), "PRODUCT_BUNDLE_IDENTIFIER 'app.mowdeck.mobile.Notifications'")

    def test_extension_bundle_id_for_release_only(self):
        target = self.spec["targets"]["NotificationService"]
        target["settings"]["configs"] = {"release": {"PRODUCT_BUNDLE_IDENTIFIER": "app.other"}}
        self.assertFails(self.check(), "(Release) has PRODUCT_BUNDLE_IDENTIFIER 'app.other'")

    def test_extension_info_plist_elsewhere(self):
        settings = self.spec["targets"]["NotificationService"]["settings"]["base"]
        settings["INFOPLIST_FILE"] = "App/Other/Info.plist"
        self.assertFails(self.check(), "INFOPLIST_FILE 'App/Other/Info.plist'")

    def test_generated_info_plist(self):
        self.spec["settings"]["base"]["GENERATE_INFOPLIST_FILE"] = "YES"
        self.assertFails(self.check(), "generates its Info.plist")

    def test_extension_installed_on_its_own(self):
        del self.spec["targets"]["NotificationService"]["settings"]["base"]["SKIP_INSTALL"]
        self.assertFails(self.check(), "target NotificationService (Debug) has SKIP_INSTALL NO")

    def test_app_not_installed(self):
        self.spec["targets"]["Mowdeck"]["settings"]["base"]["SKIP_INSTALL"] = "YES"
        self.assertFails(self.check(), "target Mowdeck (Release) has SKIP_INSTALL YES")

    def test_extension_not_embedded(self):
        self.spec["targets"]["Mowdeck"]["dependencies"][0]["embed"] = False
        self.assertFails(self.check(), "does not embed NotificationService")

    def test_app_not_depending_on_the_extension(self):
        self.spec["targets"]["Mowdeck"]["dependencies"] = []
        self.assertFails(self.check(), "the extension is not embedded")

    def test_extension_without_the_package(self):
        self.spec["targets"]["NotificationService"]["dependencies"] = []
        self.assertFails(self.check(), "does not depend on the package NotificationServiceKit")

    def test_extension_with_another_product_of_the_package(self):
        self.spec["targets"]["NotificationService"]["dependencies"][0]["product"] = "push-image-fetch"
        self.assertFails(self.check(), "does not depend on the package NotificationServiceKit")

    def test_package_not_local(self):
        self.spec["packages"]["NotificationServiceKit"] = {
            "url": "https://example.com/NotificationServiceKit", "from": "1.0.0"}
        self.assertFails(self.check(), "is not declared as a local package")

    def test_package_path_wrong(self):
        self.spec["packages"]["NotificationServiceKit"]["path"] = "Elsewhere"
        self.assertFails(self.check(), "at Elsewhere has no Package.swift")

    def test_extension_without_its_source(self):
        self.spec["targets"]["NotificationService"]["sources"] = [{"path": "App/Mowdeck"}]
        self.assertFails(self.check(), "does not compile App/NotificationService/NotificationService.swift")

    def test_stand_in_among_the_sources(self):
        self.spec["targets"]["NotificationService"]["sources"].append(
            {"path": "NotificationServiceKit/LinuxTypeCheck/UserNotifications"})
        self.assertFails(self.check(), "the Linux-only stand-in must never reach the Xcode project")

    def test_two_teams(self):
        self.spec["targets"]["NotificationService"]["settings"]["base"]["DEVELOPMENT_TEAM"] = "ZZZZZ99999"
        self.assertFails(self.check(), "DEVELOPMENT_TEAM differs between the targets")

    def test_two_marketing_versions(self):
        self.spec["targets"]["Mowdeck"]["settings"]["base"]["MARKETING_VERSION"] = "2.0"
        self.assertFails(self.check(), "MARKETING_VERSION differs between the targets")

    def test_manual_signing(self):
        self.spec["settings"]["base"]["CODE_SIGN_STYLE"] = "Manual"
        self.assertFails(self.check(), "CODE_SIGN_STYLE is 'Manual'")

    def test_spec_not_yaml(self):
        self.check()
        (self.ios / "project.yml").write_text("targets: [unclosed\n")
        result = run_check("--spec", self.ios / "project.yml")
        self.assertFails(result, "not YAML")

    # --- The Info.plists (the cases of the former scripts/check-ios-release.sh) ---

    def test_plist_breaks(self):
        cases = [
            ("wrong extension point", "NSExtensionPointIdentifier",
             lambda a, e: e["NSExtension"].__setitem__("NSExtensionPointIdentifier",
                                                        "com.apple.widgetkit-extension")),
            ("missing extension point", "NSExtensionPointIdentifier",
             lambda a, e: e["NSExtension"].pop("NSExtensionPointIdentifier")),
            ("wrong principal class", "NSExtensionPrincipalClass",
             lambda a, e: e["NSExtension"].__setitem__("NSExtensionPrincipalClass",
                                                        "NotificationService")),
            ("missing NSExtension", "NSExtension is missing", lambda a, e: e.pop("NSExtension")),
            ("wrong package type", "CFBundlePackageType is 'APPL', expected 'XPC!'",
             lambda a, e: e.__setitem__("CFBundlePackageType", "APPL")),
            ("app package type", "CFBundlePackageType is 'XPC!', expected 'APPL'",
             lambda a, e: a.__setitem__("CFBundlePackageType", "XPC!")),
            ("extension id not under the app's", "does not extend",
             lambda a, e: e.__setitem__("CFBundleIdentifier", "app.mowdeck.NotificationService")),
            ("extension id only shares a prefix", "does not extend",
             lambda a, e: e.__setitem__("CFBundleIdentifier",
                                        "app.mowdeck.mobileX.NotificationService")),
            ("extension id equal to the app's", "does not extend",
             lambda a, e: e.__setitem__("CFBundleIdentifier", "app.mowdeck.mobile")),
            ("extension id with an empty name", "does not extend",
             lambda a, e: e.__setitem__("CFBundleIdentifier", "app.mowdeck.mobile.")),
            ("app id changed", "expected app.mowdeck.mobile",
             lambda a, e: a.__setitem__("CFBundleIdentifier", "app.mowdeck.other")),
            ("version mismatch", "version mismatch",
             lambda a, e: e.__setitem__("CFBundleShortVersionString", "1.0.1")),
            ("build number mismatch", "build number mismatch",
             lambda a, e: a.__setitem__("CFBundleVersion", "2")),
            ("missing build number", "CFBundleVersion is missing",
             lambda a, e: e.pop("CFBundleVersion")),
            ("missing version", "CFBundleShortVersionString is missing",
             lambda a, e: a.pop("CFBundleShortVersionString")),
            ("version not numeric", "not 1 to 3 period-separated integers",
             lambda a, e: (a.__setitem__("CFBundleShortVersionString", "1.0-beta"),
                           e.__setitem__("CFBundleShortVersionString", "1.0-beta"))),
            ("version as a build setting", "build setting",
             lambda a, e: e.__setitem__("CFBundleShortVersionString", "$(MARKETING_VERSION)")),
            ("bundle id not a string", "CFBundleIdentifier is missing or not a string",
             lambda a, e: e.__setitem__("CFBundleIdentifier", 7)),
        ]
        for name, expected, edit in cases:
            with self.subTest(name):
                self.app = plistlib.loads(APP_PLIST.read_bytes())
                self.extension = plistlib.loads(EXTENSION_PLIST.read_bytes())
                edit(self.app, self.extension)
                self.assertFails(self.check(), expected)

    def test_extension_plist_not_a_plist(self):
        self.check()
        (self.ios / "App/NotificationService/Info.plist").write_text("not a plist")
        result = run_check("--spec", self.ios / "project.yml",
                           "--app-plist", self.ios / "App/Mowdeck/Info.plist",
                           "--extension-plist", self.ios / "App/NotificationService/Info.plist")
        self.assertFails(result, "cannot be read")

    def test_app_plist_missing(self):
        result = run_check("--app-plist", self.directory / "missing.plist")
        self.assertFails(result, "cannot be read")

    def test_usage_error_exits_2(self):
        result = run_check("--colour")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--colour", result.stderr)


def built_info(plist_path, executable, **extra):
    """An Info.plist as Xcode writes it into a bundle: build settings filled in, binary."""
    info = plistlib.loads(plist_path.read_bytes())
    text = plistlib.dumps(info).decode()
    for setting, value in [("$(EXECUTABLE_NAME)", executable), ("$(PRODUCT_NAME)", executable),
                           ("$(PRODUCT_MODULE_NAME)", executable),
                           ("$(DEVELOPMENT_LANGUAGE)", "en")]:
        text = text.replace(setting, value)
    info = plistlib.loads(text.encode())
    info.update(extra)
    return info


class BundleTests(CheckTestCase):
    """Built bundles: a good one, then each break. Files are {path in the .app: bytes}."""

    def good_files(self):
        app = built_info(APP_PLIST, "Mowdeck", CFBundleIconName="AppIcon")
        extension = built_info(EXTENSION_PLIST, "NotificationService")
        appex = "PlugIns/NotificationService.appex/"
        return {
            "Info.plist": app,
            "Mowdeck": b"executable",
            "embedded.mobileprovision": b"profile",
            "_CodeSignature/CodeResources": b"seal",
            appex + "Info.plist": extension,
            appex + "NotificationService": b"executable",
            appex + "embedded.mobileprovision": b"profile",
            appex + "_CodeSignature/CodeResources": b"seal",
        }

    @staticmethod
    def encode(value):
        return plistlib.dumps(value, fmt=plistlib.FMT_BINARY) if isinstance(value, dict) else value

    def make_app(self, files):
        app = self.directory / "Mowdeck.app"
        shutil.rmtree(app, ignore_errors=True)
        for name, value in files.items():
            path = app / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.encode(value))
        return app

    def make_ipa(self, files, prefix="Payload/Mowdeck.app/"):
        ipa = self.directory / "Mowdeck.ipa"
        with zipfile.ZipFile(ipa, "w") as archive:
            for name, value in files.items():
                archive.writestr(prefix + name, self.encode(value))
        return ipa

    def check_both(self, files, expected, ipa_only=False):
        """The break fails in an .ipa, and in a .app too unless it is about signing."""
        self.assertFails(run_check("--bundle", self.make_ipa(files)), expected)
        if not ipa_only:
            self.assertFails(run_check("--bundle", self.make_app(files)), expected)

    def test_a_good_app_and_ipa_pass(self):
        for bundle in (self.make_app(self.good_files()), self.make_ipa(self.good_files())):
            with self.subTest(bundle.suffix):
                result = run_check("--bundle", bundle)
                self.assertEqual(result.returncode, 0, result.stderr)

    def test_an_unsigned_app_passes_but_an_unsigned_ipa_does_not(self):
        files = {k: v for k, v in self.good_files().items()
                 if "_CodeSignature" not in k and "embedded.mobileprovision" not in k}
        self.assertEqual(run_check("--bundle", self.make_app(files)).returncode, 0)
        result = run_check("--bundle", self.make_ipa(files))
        self.assertFails(result, "_CodeSignature/CodeResources is missing")
        self.assertIn("PlugIns/NotificationService.appex/embedded.mobileprovision is missing",
                      result.stderr)

    def test_extension_missing(self):
        files = {k: v for k, v in self.good_files().items() if "PlugIns" not in k}
        self.check_both(files, "PlugIns/NotificationService.appex is missing")

    def test_extension_under_another_name(self):
        files = {k.replace("NotificationService.appex", "Service.appex"): v
                 for k, v in self.good_files().items()}
        self.check_both(files, "PlugIns/NotificationService.appex is missing")

    def test_build_number_not_stamped_into_the_extension(self):
        files = self.good_files()
        files["Info.plist"]["CFBundleVersion"] = "42"
        self.check_both(files, "build number mismatch")

    def test_version_differs(self):
        files = self.good_files()
        files["PlugIns/NotificationService.appex/Info.plist"]["CFBundleShortVersionString"] = "1.0.1"
        self.check_both(files, "version mismatch")

    def test_extension_bundle_id(self):
        files = self.good_files()
        files["PlugIns/NotificationService.appex/Info.plist"]["CFBundleIdentifier"] = \
            "app.mowdeck.mobile.Other"
        self.check_both(files, "CFBundleIdentifier is app.mowdeck.mobile.Other, expected "
                               "app.mowdeck.mobile.NotificationService")

    def test_build_setting_left_unexpanded(self):
        files = self.good_files()
        files["PlugIns/NotificationService.appex/Info.plist"]["NSExtension"][
            "NSExtensionPrincipalClass"] = "$(PRODUCT_MODULE_NAME).NotificationService"
        self.check_both(files, "left unexpanded (NSExtension.NSExtensionPrincipalClass")

    def test_wrong_principal_class(self):
        files = self.good_files()
        files["PlugIns/NotificationService.appex/Info.plist"]["NSExtension"][
            "NSExtensionPrincipalClass"] = "Mowdeck.NotificationService"
        self.check_both(files, "expected 'NotificationService.NotificationService'")

    def test_wrong_extension_point(self):
        files = self.good_files()
        files["PlugIns/NotificationService.appex/Info.plist"]["NSExtension"][
            "NSExtensionPointIdentifier"] = "com.apple.usernotifications.content-extension"
        self.check_both(files, "NSExtensionPointIdentifier")

    def test_extension_executable_missing(self):
        files = self.good_files()
        del files["PlugIns/NotificationService.appex/NotificationService"]
        self.check_both(files, "the executable 'NotificationService' is missing")

    def test_app_without_icon(self):
        files = self.good_files()
        del files["Info.plist"]["CFBundleIconName"]
        self.check_both(files, "no icon")

    def test_ipa_without_payload(self):
        ipa = self.make_ipa(self.good_files(), prefix="Mowdeck.app/")
        self.assertFails(run_check("--bundle", ipa), "holds 0 apps under Payload/")

    def test_not_a_bundle(self):
        path = self.directory / "Mowdeck.txt"
        path.write_text("hello")
        self.assertFails(run_check("--bundle", path), "neither a .app directory nor an .ipa")


if __name__ == "__main__":
    unittest.main()

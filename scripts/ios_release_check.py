#!/usr/bin/env python3
"""Release check of the iOS app and its Notification Service Extension (ADR 0038).

    scripts/ios_release_check.py [--spec FILE] [--app-plist FILE] [--extension-plist FILE]
                                 [--bundle Mowdeck.app|Mowdeck.ipa]

Always checks the sources:
  - the XcodeGen spec (apps/mobile/ios/project.yml): an application target and the
    NotificationService app-extension target, both iOS, with the bundle ids and Info.plists
    below; the extension embedded in the app and installed only there (SKIP_INSTALL); the
    extension depending on the local package NotificationServiceKit; the same team, signing
    style and version settings for both; and nothing of the package's Linux-only stand-in
    (LinuxTypeCheck/) among any target's sources;
  - both Info.plists: the app's bundle id app.mowdeck.mobile, the extension's extending it;
    literal versions and build numbers, 1 to 3 period-separated integers, equal in both (App
    Store Connect rejects an upload where they differ); the extension's package type XPC!,
    extension point com.apple.usernotifications.service and principal class
    $(PRODUCT_MODULE_NAME).NotificationService.

Given --bundle, also the built app (a .app directory, or an .ipa with Payload/<name>.app):
PlugIns/NotificationService.appex is present, with the bundle ids above, the app's version
and build number, the extension point, the principal class with the module filled in, every
executable present and no build setting left unexpanded; the app has its icon. An .ipa goes
to App Store Connect, so there each bundle must also be signed and carry its profile.

Exits 0 when every check passes, 1 with one line per problem, 2 on usage errors.
"""

import argparse
import plistlib
import re
import sys
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
IOS = ROOT / "apps/mobile/ios"

APP_ID = "app.mowdeck.mobile"
EXTENSION_ID = "app.mowdeck.mobile.NotificationService"
APP_TARGET = "Mowdeck"
EXTENSION_TARGET = "NotificationService"
EXTENSION_BUNDLE = "NotificationService.appex"
PACKAGE = "NotificationServiceKit"
STAND_IN_DIRECTORY = "LinuxTypeCheck"
EXTENSION_POINT = "com.apple.usernotifications.service"
PRINCIPAL_CLASS = "$(PRODUCT_MODULE_NAME).NotificationService"
# App Store Connect accepts one to three period-separated integers for both numbers.
VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
BUNDLE_ID = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*")
# Settings the two targets must agree on, wherever the spec sets them.
SHARED_SETTINGS = ["DEVELOPMENT_TEAM", "CODE_SIGN_STYLE", "MARKETING_VERSION",
                   "CURRENT_PROJECT_VERSION"]
CONFIGS = ["Debug", "Release"]


class Problems(list):
    def add(self, message):
        self.append(message)


# --- Plists -----------------------------------------------------------------------------


def parse_plist(data, what, problems):
    try:
        value = plistlib.loads(data)
    except (plistlib.InvalidFileException, ValueError, OverflowError) as error:
        problems.add(f"{what}: cannot be read: {error}")
        return None
    if not isinstance(value, dict):
        problems.add(f"{what}: not a dictionary")
        return None
    return value


def load_plist(path, what, problems):
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        problems.add(f"{what} {path}: cannot be read: {error.strerror}")
        return None
    return parse_plist(data, f"{what} {path}", problems)


def string(plist, key, what, problems, literal=True):
    value = plist.get(key)
    if not isinstance(value, str) or not value:
        problems.add(f"{what}: {key} is missing or not a string")
        return None
    if literal and "$(" in value:
        problems.add(f"{what}: {key} is a build setting ({value}); the release check needs it literal")
        return None
    return value


def check_ids(app, extension, what, problems):
    """The app's id, and the extension's extending it; returns both (or None)."""
    app_id = string(app, "CFBundleIdentifier", f"app {what}", problems)
    extension_id = string(extension, "CFBundleIdentifier", f"extension {what}", problems)
    if app_id is not None and app_id != APP_ID:
        problems.add(f"app {what}: CFBundleIdentifier is {app_id}, expected {APP_ID}")
    if app_id is not None and extension_id is not None:
        suffix = extension_id[len(app_id) + 1:]
        if not extension_id.startswith(app_id + ".") or not BUNDLE_ID.fullmatch(suffix):
            problems.add(f"extension {what}: CFBundleIdentifier {extension_id} does not extend "
                         f"the app's ({app_id}.<name>)")
    return app_id, extension_id


def check_versions(app, extension, what, problems):
    for key, label in [("CFBundleShortVersionString", "version"),
                       ("CFBundleVersion", "build number")]:
        app_value = string(app, key, f"app {what}", problems)
        extension_value = string(extension, key, f"extension {what}", problems)
        for side, value in [("app", app_value), ("extension", extension_value)]:
            if value is not None and not VERSION.fullmatch(value):
                problems.add(f"{side} {what}: {key} {value!r} is not 1 to 3 period-separated integers")
        if app_value is not None and extension_value is not None and app_value != extension_value:
            problems.add(f"{label} mismatch ({what}): app {key} is {app_value}, "
                         f"extension's is {extension_value}")


def check_extension_keys(extension, what, principal_class, problems):
    package_type = extension.get("CFBundlePackageType")
    if package_type != "XPC!":
        problems.add(f"extension {what}: CFBundlePackageType is {package_type!r}, expected 'XPC!'")
    attributes = extension.get("NSExtension")
    if not isinstance(attributes, dict):
        problems.add(f"extension {what}: NSExtension is missing or not a dictionary")
        return
    point = attributes.get("NSExtensionPointIdentifier")
    if point != EXTENSION_POINT:
        problems.add(f"extension {what}: NSExtensionPointIdentifier is {point!r}, "
                     f"expected {EXTENSION_POINT!r}")
    principal = attributes.get("NSExtensionPrincipalClass")
    if principal != principal_class:
        problems.add(f"extension {what}: NSExtensionPrincipalClass is {principal!r}, "
                     f"expected {principal_class!r}")


def check_plists(app_path, extension_path, problems):
    app = load_plist(app_path, "app Info.plist", problems)
    extension = load_plist(extension_path, "extension Info.plist", problems)
    if app is None or extension is None:
        return None, None
    what = "Info.plist"
    check_ids(app, extension, what, problems)
    check_versions(app, extension, what, problems)
    if app.get("CFBundlePackageType") != "APPL":
        problems.add(f"app {what}: CFBundlePackageType is {app.get('CFBundlePackageType')!r}, "
                     "expected 'APPL'")
    check_extension_keys(extension, what, PRINCIPAL_CLASS, problems)
    return app, extension


# --- The XcodeGen spec ------------------------------------------------------------------


def effective_settings(project, target):
    """config -> {setting: value} as XcodeGen merges them: project base, project config,
    target base, target config (simple maps count as base when no base/configs/groups)."""
    def layers(settings):
        if not isinstance(settings, dict):
            return {}, {}
        if any(k in settings for k in ("base", "configs", "groups")):
            base = settings.get("base") or {}
            configs = settings.get("configs") or {}
        else:
            base, configs = settings, {}
        return base, {str(k).lower(): v or {} for k, v in configs.items()}

    result = {}
    for config in CONFIGS:
        merged = {}
        for settings in (project.get("settings"), target.get("settings")):
            base, configs = layers(settings)
            merged.update(base)
            merged.update(configs.get(config.lower(), {}))
        result[config] = {k: str(v) for k, v in merged.items()}
    return result


def yes(value):
    """A boolean build setting, as YAML (true) or Xcode (YES) writes it."""
    return str(value).strip().lower() in ("yes", "true")


def source_paths(target):
    sources = target.get("sources") or []
    if isinstance(sources, (str, dict)):
        sources = [sources]
    paths = []
    for source in sources:
        path = source.get("path") if isinstance(source, dict) else source
        if isinstance(path, str):
            paths.append(path)
    return paths


def dependencies(target):
    return [d for d in target.get("dependencies") or [] if isinstance(d, dict)]


def check_spec(spec_path, problems):
    try:
        import yaml
    except ImportError:
        print("ios_release_check: PyYAML is needed (pip install -r scripts/requirements-checks.txt)",
              file=sys.stderr)
        sys.exit(2)
    what = f"project spec {spec_path}"
    try:
        spec = yaml.safe_load(Path(spec_path).read_text())
    except OSError as error:
        problems.add(f"{what}: cannot be read: {error.strerror}")
        return
    except yaml.YAMLError as error:
        problems.add(f"{what}: not YAML: {error}")
        return
    if not isinstance(spec, dict):
        problems.add(f"{what}: not a mapping")
        return
    base = Path(spec_path).resolve().parent
    targets = spec.get("targets") if isinstance(spec.get("targets"), dict) else {}

    expected = [
        (APP_TARGET, "application", APP_ID, "App/Mowdeck/Info.plist"),
        (EXTENSION_TARGET, "app-extension", EXTENSION_ID, "App/NotificationService/Info.plist"),
    ]
    settings = {}
    for name, kind, bundle_id, plist in expected:
        target = targets.get(name)
        if not isinstance(target, dict):
            problems.add(f"{what}: no target {name}")
            continue
        if target.get("type") != kind:
            problems.add(f"{what}: target {name} has type {target.get('type')!r}, expected {kind!r}")
        if target.get("platform") != "iOS":
            problems.add(f"{what}: target {name} has platform {target.get('platform')!r}, "
                         "expected 'iOS'")
        settings[name] = effective_settings(spec, target)
        for config in CONFIGS:
            values = settings[name][config]
            if values.get("PRODUCT_BUNDLE_IDENTIFIER") != bundle_id:
                problems.add(f"{what}: target {name} ({config}) has PRODUCT_BUNDLE_IDENTIFIER "
                             f"{values.get('PRODUCT_BUNDLE_IDENTIFIER')!r}, expected {bundle_id!r}")
            if values.get("INFOPLIST_FILE") != plist:
                problems.add(f"{what}: target {name} ({config}) has INFOPLIST_FILE "
                             f"{values.get('INFOPLIST_FILE')!r}, expected {plist!r}")
            if yes(values.get("GENERATE_INFOPLIST_FILE", "NO")):
                problems.add(f"{what}: target {name} ({config}) generates its Info.plist; "
                             "the release check needs the file it reads")
            # The archive must hold the app, with the extension inside it and not beside it.
            skip_install = yes(values.get("SKIP_INSTALL", "NO"))
            if skip_install != (name == EXTENSION_TARGET):
                problems.add(f"{what}: target {name} ({config}) has SKIP_INSTALL "
                             f"{'YES' if skip_install else 'NO'}, expected "
                             f"{'YES' if name == EXTENSION_TARGET else 'NO'} (the archive must "
                             "hold the app alone, the extension inside it)")
        if not (base / plist).is_file():
            problems.add(f"{what}: target {name}'s Info.plist {plist} does not exist")
        for path in source_paths(target):
            if STAND_IN_DIRECTORY in PurePosixPath(path).parts:
                problems.add(f"{what}: target {name} compiles {path}: the Linux-only stand-in "
                             "must never reach the Xcode project")

    app = targets.get(APP_TARGET)
    if isinstance(app, dict):
        embeds = [d for d in dependencies(app) if d.get("target") == EXTENSION_TARGET]
        if not embeds:
            problems.add(f"{what}: target {APP_TARGET} does not depend on {EXTENSION_TARGET}, "
                         "so the extension is not embedded")
        elif any(d.get("embed") is False or d.get("copy") for d in embeds):
            problems.add(f"{what}: target {APP_TARGET} does not embed {EXTENSION_TARGET} in "
                         "PlugIns (embed: false or a custom copy phase)")

    extension = targets.get(EXTENSION_TARGET)
    if isinstance(extension, dict):
        paths = source_paths(extension)
        if not any((base / p / "NotificationService.swift").is_file()
                   or (base / p).name == "NotificationService.swift" for p in paths):
            problems.add(f"{what}: target {EXTENSION_TARGET} does not compile "
                         "App/NotificationService/NotificationService.swift")
        uses = [d for d in dependencies(extension) if d.get("package") == PACKAGE]
        products = {p for d in uses for p in ([d["product"]] if "product" in d
                                              else d.get("products") or [PACKAGE])}
        if PACKAGE not in products:
            problems.add(f"{what}: target {EXTENSION_TARGET} does not depend on the package "
                         f"{PACKAGE} (product {PACKAGE})")

    packages = spec.get("packages") if isinstance(spec.get("packages"), dict) else {}
    package = packages.get(PACKAGE)
    if not isinstance(package, dict) or "path" not in package:
        problems.add(f"{what}: {PACKAGE} is not declared as a local package (packages: "
                     f"{PACKAGE}: path: ...)")
    elif not (base / package["path"] / "Package.swift").is_file():
        problems.add(f"{what}: local package {PACKAGE} at {package['path']} has no Package.swift")

    if len(settings) == 2:
        for config in CONFIGS:
            for key in SHARED_SETTINGS:
                values = {name: settings[name][config].get(key) for name in settings}
                if len(set(values.values())) > 1:
                    problems.add(f"{what}: {key} differs between the targets ({config}): "
                                 + ", ".join(f"{n} {v!r}" for n, v in values.items()))
            style = settings[APP_TARGET][config].get("CODE_SIGN_STYLE")
            if style != "Automatic":
                problems.add(f"{what}: CODE_SIGN_STYLE is {style!r} ({config}), expected "
                             "'Automatic' (release signing is scripts/release-ios.sh's)")


# --- A built bundle ---------------------------------------------------------------------


class Tree:
    """A built .app directory, or the Payload/<name>.app inside an .ipa, read alike."""

    def __init__(self, path, problems):
        self.path = Path(path)
        self.zip = None
        self.app = None  # PurePosixPath of the .app inside the tree
        if self.path.is_dir():
            self.app = PurePosixPath(".")
        elif zipfile.is_zipfile(self.path):
            self.zip = zipfile.ZipFile(self.path)
            apps = sorted({PurePosixPath(*PurePosixPath(n).parts[:2])
                           for n in self.zip.namelist()
                           if len(PurePosixPath(n).parts) > 2
                           and PurePosixPath(n).parts[0] == "Payload"
                           and PurePosixPath(n).parts[1].endswith(".app")})
            if len(apps) != 1:
                problems.add(f"bundle {path}: holds {len(apps)} apps under Payload/, expected one")
            else:
                self.app = apps[0]
        else:
            problems.add(f"bundle {path}: neither a .app directory nor an .ipa (zip)")

    def exists(self, relative):
        if self.zip is not None:
            name = str(self.app / relative)
            return any(n == name or n.startswith(name + "/") for n in self.zip.namelist())
        return (self.path / relative).exists()

    def read(self, relative):
        if self.zip is not None:
            return self.zip.read(str(self.app / relative))
        return (self.path / relative).read_bytes()


def unexpanded(value, key=""):
    """The first build-setting reference left in a plist value, as 'key: value'."""
    if isinstance(value, str):
        return f"{key}: {value}" if "$(" in value or "${" in value else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = unexpanded(v, f"{key}.{k}" if key else k)
            if found:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = unexpanded(v, f"{key}.{i}")
            if found:
                return found
    return None


def check_bundle(path, problems):
    tree = Tree(path, problems)
    if tree.app is None:
        return
    what = f"bundle {path}"
    appex = PurePosixPath("PlugIns") / EXTENSION_BUNDLE
    if not tree.exists("Info.plist"):
        problems.add(f"{what}: the app has no Info.plist")
        return
    app = parse_plist(tree.read("Info.plist"), f"{what}: app Info.plist", problems)
    if not tree.exists(appex / "Info.plist"):
        problems.add(f"{what}: {appex} is missing: the extension is not embedded")
        return
    extension = parse_plist(tree.read(appex / "Info.plist"), f"{what}: {appex}/Info.plist",
                            problems)
    if app is None or extension is None:
        return
    check_ids(app, extension, what, problems)
    extension_id = extension.get("CFBundleIdentifier")
    if isinstance(extension_id, str) and extension_id != EXTENSION_ID:
        problems.add(f"extension {what}: CFBundleIdentifier is {extension_id}, "
                     f"expected {EXTENSION_ID}")
    check_versions(app, extension, what, problems)
    for side, plist in [("app", app), ("extension", extension)]:
        found = unexpanded(plist)
        if found:
            problems.add(f"{side} {what}: a build setting was left unexpanded ({found})")
    executable = extension.get("CFBundleExecutable")
    check_extension_keys(extension, what,
                         f"{executable}.NotificationService" if isinstance(executable, str)
                         else "<CFBundleExecutable>.NotificationService", problems)
    for side, directory, plist in [("app", PurePosixPath("."), app),
                                   ("extension", appex, extension)]:
        name = plist.get("CFBundleExecutable")
        if not isinstance(name, str) or not tree.exists(directory / name):
            problems.add(f"{side} {what}: the executable {name!r} is missing")
    if not app.get("CFBundleIconName") and not app.get("CFBundleIcons"):
        problems.add(f"app {what}: no icon (CFBundleIconName): App Store Connect refuses it")
    if tree.zip is not None:
        for side, directory in [("app", PurePosixPath(".")), ("extension", appex)]:
            for item in ("_CodeSignature/CodeResources", "embedded.mobileprovision"):
                if not tree.exists(directory / item):
                    problems.add(f"{side} {what}: {directory / item} is missing: an .ipa must be "
                                 "signed with its profile (scripts/release-ios.sh)")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="ios_release_check.py",
        description="Release check of the iOS app and its Notification Service Extension.")
    parser.add_argument("--spec", default=str(IOS / "project.yml"),
                        help="the XcodeGen spec (default apps/mobile/ios/project.yml)")
    parser.add_argument("--app-plist", default=str(IOS / "App/Mowdeck/Info.plist"))
    parser.add_argument("--extension-plist",
                        default=str(IOS / "App/NotificationService/Info.plist"))
    parser.add_argument("--bundle", help="a built Mowdeck.app or Mowdeck.ipa to check as well")
    arguments = parser.parse_args(argv)

    problems = Problems()
    check_spec(arguments.spec, problems)
    check_plists(arguments.app_plist, arguments.extension_plist, problems)
    if arguments.bundle:
        check_bundle(arguments.bundle, problems)
    for problem in problems:
        print(f"ios_release_check: {problem}", file=sys.stderr)
    if problems:
        return 1
    checked = "the spec and both Info.plists" + (f", and {arguments.bundle}" if arguments.bundle else "")
    print(f"ios_release_check: ok ({checked})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The GitHub workflows of the iOS release (ADR 0038): both validate against the GitHub
workflow schema that check-jsonschema bundles (vendor.github-workflows, no network), a broken
copy does not, and the TestFlight workflow wires what scripts/release-ios.sh needs, in order.

Run: python3 -m unittest discover -s scripts/tests (check-jsonschema from scripts/setup.sh's
.local/venv or PATH).
"""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github/workflows"
TESTFLIGHT = WORKFLOWS / "testflight.yml"
PULL_REQUEST = WORKFLOWS / "ios-release-check.yml"
SECRETS = ["APPLE_PROFILE_IOS_APP_BASE64", "APPLE_PROFILE_IOS_NOTIFICATION_BASE64",
           "APPLE_CERTIFICATE_P12_BASE64", "APPLE_CERTIFICATE_PASSWORD"]


def check_jsonschema():
    venv = ROOT / ".local/venv/bin/check-jsonschema"
    found = str(venv) if venv.exists() else shutil.which("check-jsonschema")
    if not found:
        raise AssertionError("check-jsonschema is missing: run scripts/setup.sh")
    return found


def validate(*paths):
    return subprocess.run(
        [check_jsonschema(), "--builtin-schema", "vendor.github-workflows", *map(str, paths)],
        capture_output=True, text=True)


def load(path):
    workflow = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the key `on` as true.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


class WorkflowTests(unittest.TestCase):
    def test_both_workflows_are_valid(self):
        result = validate(TESTFLIGHT, PULL_REQUEST)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_a_broken_workflow_is_refused(self):
        breaks = {
            "steps misspelt": ("    steps:\n", "    step:\n"),
            "a step with neither run nor uses": ("        run: python3 scripts/ios_release_check.py\n",
                                                 "        shell: bash\n"),
            "an unknown trigger": ("  workflow_dispatch:\n", "  workflow_dispatched:\n"),
        }
        text = TESTFLIGHT.read_text()
        with tempfile.TemporaryDirectory() as directory:
            for name, (old, new) in breaks.items():
                with self.subTest(name):
                    self.assertIn(old, text)
                    broken = Path(directory) / "testflight.yml"
                    broken.write_text(text.replace(old, new, 1))
                    result = validate(broken)
                    self.assertNotEqual(result.returncode, 0, result.stdout)

    def test_testflight_runs_on_a_mac_and_wires_the_release_in_order(self):
        workflow = load(TESTFLIGHT)
        (job,) = workflow["jobs"].values()
        self.assertTrue(job["runs-on"].startswith("macos-"))
        steps = job["steps"]
        runs = [step.get("run", "") for step in steps]

        def first(text):
            for i, run in enumerate(runs):
                if text in run:
                    return i
            self.fail(f"no step runs {text!r}")

        install = first("brew install xcodegen")
        generate = first("xcodegen generate --spec apps/mobile/ios/project.yml")
        release = first("scripts/release-ios.sh")
        check = first("scripts/ios_release_check.py --bundle")
        upload = first("xcrun altool --upload-app")
        self.assertLess(first("python3 scripts/ios_release_check.py"), release)
        self.assertTrue(install < generate < release < check < upload)
        environment = steps[release].get("env", {})
        for name in SECRETS:
            self.assertEqual(environment.get(name), f"${{{{ secrets.{name} }}}}", name)
        self.assertIn("--build-number", runs[release])

    def test_pull_requests_run_the_release_check(self):
        workflow = load(PULL_REQUEST)
        self.assertIn("pull_request", workflow["on"])
        (job,) = workflow["jobs"].values()
        runs = [step.get("run", "") for step in job["steps"]]
        self.assertIn("scripts/check-ios-release.sh", runs)
        self.assertIn("python3 -m pip install -r scripts/requirements-checks.txt", runs)


if __name__ == "__main__":
    unittest.main()

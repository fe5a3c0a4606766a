"""The compose files of deploy/ as Compose reads them, for scripts/check-compose.py and
scripts/check-compose-cluster.py (no Docker engine runs where they do): loading without the
`x-` anchors' own keys, interpolation of ${VAR:-default} and $$, merging an override on top
with Compose's rules for the keys these files use, and which services a set of profiles
starts."""
import copy
import os
import pathlib
import re
import subprocess
import tempfile

import yaml

root = pathlib.Path(__file__).resolve().parent.parent.parent
deploy = root / "deploy"  # Compose resolves every relative path against the first file's folder


def interpolate(value, environment):
    """Compose's ${VAR}, ${VAR:-default}, ${VAR-default} and $$, through a whole document."""
    if isinstance(value, dict):
        return {k: interpolate(v, environment) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, environment) for v in value]
    if not isinstance(value, str):
        return value

    def one(match):
        if match.group(0) == "$$":
            return "$"
        name, operator, default = match.group(1), match.group(2), match.group(3) or ""
        found = environment.get(name)
        if operator == ":-" and not found:
            return default
        if operator == "-" and found is None:
            return default
        return found or ""

    return re.sub(r"\$\$|\$\{([A-Za-z0-9_]+)(?:(:?-)([^}]*))?\}", one, value)


def load(name, environment):
    data = copy.deepcopy(yaml.safe_load((deploy / name).read_text()))
    return interpolate({k: v for k, v in data.items() if not k.startswith("x-")}, environment)


def as_mapping(value, default=None):
    """environment and depends_on may be lists; Compose merges them as mappings."""
    if isinstance(value, dict):
        return dict(value)
    mapping = {}
    for item in value or []:
        key, sep, rest = str(item).partition("=")
        mapping[key] = rest if sep else copy.deepcopy(default)
    return mapping


def volume_target(entry):
    if isinstance(entry, dict):
        return entry.get("target")
    parts = entry.split(":")
    return parts[1] if len(parts) > 1 else parts[0]


def secret_source(entry):
    return entry["source"] if isinstance(entry, dict) else entry


def secret_target(entry):
    if isinstance(entry, dict):
        target = entry.get("target") or entry["source"]
    else:
        target = entry
    return target if target.startswith("/") else f"/run/secrets/{target}"


def merge(base, override, path=()):
    """override on top of base: mappings key by key; `environment` and `depends_on` by
    variable and service; `volumes` by path in the container and `secrets` by their file
    in it; `command`, `entrypoint` and `healthcheck.test` replaced; other lists appended
    without repeats."""
    if not isinstance(base, dict) or not isinstance(override, dict):
        return override
    merged = dict(base)
    for key, value in override.items():
        here = path + (key,)
        in_service = len(here) == 3 and here[0] == "services"
        if key not in merged:
            merged[key] = value
        elif (in_service and key in ("command", "entrypoint")) or here[-2:] == ("healthcheck", "test"):
            merged[key] = value
        elif in_service and key in ("environment", "labels"):
            merged[key] = {**as_mapping(merged[key]), **as_mapping(value)}
        elif in_service and key == "depends_on":
            started = {"condition": "service_started"}
            old, new = as_mapping(merged[key], started), as_mapping(value, started)
            merged[key] = {name: merge(old.get(name, {}), new[name]) for name in new} | {
                name: old[name] for name in old if name not in new}
        elif in_service and key == "volumes":
            replaced = {volume_target(entry) for entry in value}
            merged[key] = [e for e in merged[key] if volume_target(e) not in replaced] + value
        elif in_service and key == "secrets":
            replaced = {secret_target(entry) for entry in value}
            merged[key] = [e for e in merged[key] if secret_target(e) not in replaced] + value
        elif isinstance(value, dict):
            merged[key] = merge(merged[key], value, here)
        elif isinstance(value, list) and isinstance(merged[key], list):
            merged[key] = merged[key] + [v for v in value if v not in merged[key]]
        else:
            merged[key] = value
    return merged


def compose(files, environment):
    """The files merged in order, as `docker compose -f A -f B ...` reads them."""
    merged = load(files[0], environment)
    for name in files[1:]:
        merged = merge(merged, load(name, environment))
    return merged


def profiles_of(model):
    return sorted({p for s in model["services"].values() for p in s.get("profiles", [])})


def started(model, profiles):
    """The services `up` starts with these profiles: those without profiles, and those
    with one of them."""
    return {name for name, service in model["services"].items()
            if not service.get("profiles") or set(service["profiles"]) & set(profiles)}


def env_file(name):
    values = {}
    for line in (deploy / name).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def service_environment(service):
    """What the process sees: its env_file(s), then `environment` over them."""
    values = {}
    files = service.get("env_file", [])
    for file in [files] if isinstance(files, str) else files:
        values.update(env_file(file if isinstance(file, str) else file["path"]))
    values.update({k: str(v) for k, v in as_mapping(service.get("environment")).items()})
    return values


def is_mowdeck(service):
    return "build" in service


def path_in_deploy(path):
    path = pathlib.Path(path)
    return path if path.is_absolute() else deploy / path


_generated = None


def generated_secrets():
    """A directory of the secret files as `scripts/make-secrets.sh --dev` makes them: the
    one MOWDECK_SECRETS_DIR names, or one made here once."""
    global _generated
    if os.environ.get("MOWDECK_SECRETS_DIR"):
        return os.environ["MOWDECK_SECRETS_DIR"]
    if _generated is None:
        _generated = tempfile.TemporaryDirectory()
        subprocess.run([str(root / "scripts/make-secrets.sh"), "--dev", _generated.name + "/s"],
                       check=True, stderr=subprocess.DEVNULL)
    return _generated.name + "/s"

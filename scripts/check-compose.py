#!/usr/bin/env python3
"""Checks deploy/compose.yaml alone and with each override (compose.dev.yaml,
compose.cluster.yaml, both), for every profile, as an operator would run them:
- every service a profile starts has what it depends on started too, every secret it
  mounts declared with a file that exists (in deploy/ or as scripts/make-secrets.sh --dev
  makes it), every file it mounts present, every volume and network declared;
- every service is hardened: read_only, cap_drop ALL, no-new-privileges, a memory limit,
  rotated json-file logs; vendors' images pinned to a patch version; Mowdeck's run as a
  non-root user, from a Dockerfile target that holds the command, and the production
  target holds no test double;
- no secret is written in a compose file or mowdeck.env: passwords, tokens, the image
  secret and the database URL come as *_FILE variables naming a mounted secret, and each
  worker has the key file its channel needs;
- every variable of mowdeck.env and of the services' environments is read by the code and
  documented in README.md, and every variable the code reads is documented;
- ports and health checks match the listen addresses, the proxy is the only way to the
  serving process, and the serving process trusts X-Forwarded-For from the proxy's network
  only.
Exits 1 with one line per problem. --merged-dir DIR writes each merged configuration there,
for the schema check."""
import pathlib
import re
import sys
from urllib.parse import urlsplit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "lib"))
from compose_files import (  # noqa: E402
    as_mapping, compose, deploy, env_file, generated_secrets, is_mowdeck, path_in_deploy,
    profiles_of, root, secret_source, secret_target, service_environment, started)

import yaml  # noqa: E402

CONFIGURATIONS = {
    "compose.yaml": ["compose.yaml"],
    "compose.yaml + compose.dev.yaml": ["compose.yaml", "compose.dev.yaml"],
    "compose.yaml + compose.cluster.yaml": ["compose.yaml", "compose.cluster.yaml"],
    "compose.yaml + compose.cluster.yaml + compose.dev.yaml":
        ["compose.yaml", "compose.cluster.yaml", "compose.dev.yaml"],
}
# Variables whose value is a secret: given as NAME_FILE, never as NAME.
SECRET_NAME = re.compile(r"PASSWORD|TOKEN|SECRET|DATABASE_URL")
# Each worker's channel key, by the program it runs: the variable naming the file.
KEY_FILES = {
    "APNsWorker": ["MOWDECK_NOTIFICATIONS_APNS_KEY_PATH"],
    "WebPushWorker": ["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"],
    "ImageServeWorker": ["MOWDECK_NOTIFICATIONS_WEBPUSH_VAPID_KEY_PATH"],
    "FCMWorker": ["MOWDECK_NOTIFICATIONS_FCM_CREDENTIALS_PATH"],
}

# A vendor's image is pinned by a tag naming a patch release (nats 2.10.26, caddy 2.11.4,
# prometheus v3.5.0) or by a digest; PostgreSQL numbers its releases major.minor (15.13).
PINNED = re.compile(r":v?\d+\.\d+\.\d+[^:/]*$|^[^:]*postgres[^:]*:\d+\.\d+[^:/]*$|@sha256:[0-9a-f]{64}$")

dockerfile = (deploy / "Dockerfile").read_text()
package = (root / "Package.swift").read_text()
readme = (root / "README.md").read_text()
sources = "\n".join(p.read_text() for p in (root / "Sources").rglob("*.swift"))
products = set(re.findall(r'\.executable\(name: "([^"]+)"', package)) | set(
    re.findall(r'\.executableTarget\(\s*name: "([^"]+)"', package))
env = env_file("mowdeck.env")
secrets_dir = generated_secrets()
environment = {"MOWDECK_SECRETS_DIR": secrets_dir}
problems = []


def program(command):
    """The executable a command runs: its first word, or what `sh -c "exec X ..."` runs."""
    if command[:2] == ["sh", "-c"]:
        match = re.match(r"\s*exec\s+(\S+)", command[2])
        return match.group(1) if match else None
    return command[0]


# The Dockerfile: which programs the build stage copies to which folder, and which folder
# each target copies to /usr/local/bin.
folders = {}
for names, folder in re.findall(r"for p in ([^;]+); do\s*\\?\s*cp \"\$bin/\$p\" (/out/\w+)/", dockerfile):
    folders[folder] = set(names.replace("\\", " ").split())
targets = {}
for stage, body in re.findall(r"^FROM \S+ AS (\S+)\n(.*?)(?=^FROM |\Z)", dockerfile, re.M | re.S):
    copied = re.findall(r"COPY --from=build (/out/\w+)/ /usr/local/bin/", body)
    targets[stage] = set().union(*(folders.get(f, set()) for f in copied)) if copied else set()
if not targets.get("production"):
    problems.append("the Dockerfile has no `production` target with the workers")
if targets.get("production", set()) & targets.get("doubles", set()):
    problems.append("the production image carries test doubles: "
                    f"{sorted(targets['production'] & targets['doubles'])}")
if not re.search(r"^FROM \S+ AS production\n(?:(?!^FROM ).)*\Z", dockerfile, re.M | re.S):
    problems.append("the Dockerfile's last stage is not `production` (a build without "
                    "--target would not make the production image)")


def listen_port(listen):
    return listen.rsplit(":", 1)[1]


serve_port = listen_port(env.get("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", "0.0.0.0:8080"))
metrics_port = listen_port(env.get("MOWDECK_METRICS_LISTEN", "0.0.0.0:9090"))


def check_service(label, name, service, model):
    """What every service must be, whichever profile starts it."""
    found = []
    if service.get("read_only") is not True:
        found.append("is not read_only")
    if service.get("cap_drop") != ["ALL"]:
        found.append("does not drop every capability (cap_drop: [ALL])")
    if "no-new-privileges:true" not in service.get("security_opt", []):
        found.append("lacks security_opt no-new-privileges:true")
    memory = service.get("mem_limit") or (
        ((service.get("deploy") or {}).get("resources") or {}).get("limits") or {}).get("memory")
    if not memory:
        found.append("has no memory limit")
    logging = service.get("logging") or {}
    options = logging.get("options") or {}
    if logging.get("driver") != "json-file" or "max-size" not in options or "max-file" not in options:
        found.append("has no rotated json-file logging (max-size, max-file)")
    if is_mowdeck(service):
        user = str(service.get("user", ""))
        if not user or user.split(":")[0] in ("0", "root"):
            found.append(f"runs as {user or 'the image user'}; want a non-root uid")
        target = (service.get("build") or {}).get("target")
        command = service.get("command") or []
        executable = program(command) if command else None
        if not executable:
            found.append("has no command")
        elif executable not in products:
            found.append(f"runs {executable}, which Package.swift does not build")
        elif target not in targets:
            found.append(f"builds the Dockerfile target {target}, which does not exist")
        elif executable not in targets[target]:
            found.append(f"runs {executable}, which the Dockerfile's {target} target lacks")
        if target == "doubles" and "dev" not in service.get("profiles", []):
            found.append("runs a test double outside the dev profile")
    else:
        image = str(service.get("image", ""))
        if not PINNED.search(image):
            found.append(f"uses the image {image}, not pinned to a patch version or digest")

    # Secrets: no literal, every *_FILE names a secret the service mounts, every key file
    # its program needs is mounted.
    values = service_environment(service) if is_mowdeck(service) else {
        k: str(v) for k, v in as_mapping(service.get("environment")).items()}
    mounted = {secret_target(s) for s in service.get("secrets", [])}
    for key, value in values.items():
        if SECRET_NAME.search(key) and not key.endswith("_FILE") and value:
            found.append(f"is given {key} itself; give it as {key}_FILE, a mounted secret")
        if key.endswith("_FILE") and value not in mounted:
            found.append(f"has {key}={value}, which is none of its secrets")
    command = service.get("command") or []
    for key in KEY_FILES.get(program(command) if command else "", []):
        if values.get(key) not in mounted:
            found.append(f"needs {key} ({values.get(key)}), which is none of its secrets")
    for entry in service.get("secrets", []):
        if secret_source(entry) not in (model.get("secrets") or {}):
            found.append(f"mounts the secret {secret_source(entry)}, which is not declared")

    if is_mowdeck(service) and "/healthz" in " ".join(
            (service.get("healthcheck") or {}).get("test", []) or []):
        test = " ".join(service["healthcheck"]["test"])
        if f":{metrics_port}/" not in test:
            found.append(f"health check does not use the metrics port {metrics_port}")
    return found


def check_variables(model):
    """Every variable set for a Mowdeck process is read by the code and documented."""
    names = set(env)
    for service in model["services"].values():
        if is_mowdeck(service):
            names |= set(as_mapping(service.get("environment")))
    found = []
    for key in sorted(names):
        # NAME_FILE: the file holding NAME (unless the code reads NAME_FILE itself, as the
        # CA bundles' variables).
        read = key
        if key.endswith("_FILE") and f'"{key}"' not in sources:
            read = key[:-len("_FILE")]
        if f'"{read}"' not in sources:
            found.append(f"{key} is set for a Mowdeck process but no code reads {read}")
        elif key != read and not re.search(r'"_FILE"|\)_FILE"', sources):
            found.append(f"{key} is set, but the code knows no NAME_FILE convention")
        if key not in readme:
            found.append(f"{key} is set for a Mowdeck process but README.md does not document it")
    return found


def check_edge(model):
    """The proxy is the serving process's only door, and the only one it trusts."""
    found = []
    services = model["services"]
    serve, proxy = services.get("serve", {}), services.get("proxy", {})
    if serve.get("ports"):
        found.append(f"serve publishes {serve['ports']}: it must be reached through the proxy")
    if not proxy:
        return found + ["there is no proxy service in front of serve"]
    if not any(str(p).split(":")[-1] == "443" for p in proxy.get("ports", [])):
        found.append("the proxy publishes no port 443")
    edge = (model.get("networks") or {}).get("edge") or {}
    subnets = [c.get("subnet") for c in (edge.get("ipam") or {}).get("config", [])]
    on_edge = sorted(n for n, s in services.items() if "edge" in (s.get("networks") or []))
    if on_edge != ["proxy", "serve"]:
        found.append(f"the edge network holds {on_edge}; want the proxy and serve only")
    trusted = service_environment(serve).get("MOWDECK_NOTIFICATIONS_TRUSTED_PROXIES")
    if not subnets or trusted != subnets[0]:
        found.append(f"serve trusts X-Forwarded-For from {trusted}, the edge network is {subnets}")
    app_url = service_environment(serve).get("MOWDECK_NOTIFICATIONS_APP_URL", "")
    site = as_mapping(proxy.get("environment")).get("MOWDECK_PUBLIC_HOST")
    if urlsplit(app_url).scheme != "https" or urlsplit(app_url).hostname != site:
        found.append(f"the processes' public origin is {app_url}, the proxy's site {site}")
    caddy = (deploy / "caddy/mowdeck.caddy").read_text()
    ports = re.findall(r"^\s*port (\d+)", caddy, re.M)
    if ports != [serve_port]:
        found.append(f"the proxy sends to port {ports}, serve listens on {serve_port}")
    return found


def check_started(model, profiles):
    """What `up` with these profiles starts: its dependencies, secrets, files, volumes."""
    services = model["services"]
    running = started(model, profiles)
    found = []
    declared_volumes = set(model.get("volumes") or {})
    declared_networks = set(model.get("networks") or {}) | {"default"}
    declared_secrets = model.get("secrets") or {}
    for name in sorted(running):
        service = services[name]
        for dependency in as_mapping(service.get("depends_on")):
            if dependency not in running:
                found.append(f"{name} depends on {dependency}, which this profile does not start")
        for entry in service.get("secrets", []):
            file = (declared_secrets.get(secret_source(entry)) or {}).get("file")
            if file and not path_in_deploy(file).is_file():
                found.append(f"{name} mounts the secret {secret_source(entry)}, whose file "
                             f"{file} neither exists nor is made by make-secrets.sh")
        for entry in service.get("volumes", []):
            source = entry.get("source", "") if isinstance(entry, dict) else (
                entry.split(":")[0] if ":" in entry else "")
            if source.startswith((".", "/")):
                if not path_in_deploy(source).exists():
                    found.append(f"{name} mounts {source}, which does not exist in deploy/")
            elif source and source not in declared_volumes:
                found.append(f"{name} mounts the volume {source}, which is not declared")
        for network in service.get("networks") or []:
            if network not in declared_networks:
                found.append(f"{name} is on the network {network}, which is not declared")
    return found


merged_dir = None
if len(sys.argv) == 3 and sys.argv[1] == "--merged-dir":
    merged_dir = pathlib.Path(sys.argv[2])
counted = []
for label, files in CONFIGURATIONS.items():
    model = compose(files, environment)
    found = []
    for name, service in model["services"].items():
        found += [f"service {name} {problem}" for problem in check_service(label, name, service, model)]
    found += check_variables(model) + check_edge(model)
    profiles = profiles_of(model)
    for chosen in [[]] + [[p] for p in profiles] + ([profiles] if len(profiles) > 1 else []):
        found += [f"{problem} (--profile {' '.join(chosen) or 'none'})"
                  for problem in check_started(model, chosen)]
    problems += [f"{label}: {problem}" for problem in dict.fromkeys(found)]
    counted.append(f"{len(model['services'])} services")
    if merged_dir:
        out = merged_dir / (label.replace(" + ", "+") + ".merged.yaml")
        out.write_text(yaml.safe_dump(model, sort_keys=False))

for key in sorted(set(re.findall(r'"(MOWDECK_[A-Z0-9_]+)"', sources))):
    if key.startswith("MOWDECK_TEST_") or key in ("MOWDECK_BIN_DIR",):
        continue
    if key not in readme:
        problems.append(f"the code reads {key}, which README.md does not document")
if f"EXPOSE {metrics_port}" not in dockerfile:
    problems.append(f"the Dockerfile does not expose the metrics port {metrics_port}")

for problem in problems:
    print("check-compose:", problem)
if problems:
    sys.exit(1)
print(f"check-compose: ok ({len(CONFIGURATIONS)} configurations with every profile: "
      f"{', '.join(counted)}; {len(env)} variables in mowdeck.env)")

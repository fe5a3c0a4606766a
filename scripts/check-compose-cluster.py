#!/usr/bin/env python3
"""Checks deploy/compose.cluster.yaml as Compose applies it: on top of deploy/compose.yaml.
No Docker engine runs here, so this merges the two with Compose's rules for the keys they
use (mappings merged key by key; `environment` and `depends_on` by variable and service;
`volumes` by path in the container; `command`, `entrypoint` and `healthcheck.test`
replaced; other lists appended), then checks that every depends_on names a service that
starts with its dependant, that every Mowdeck process is pointed at every nats-server and
both PostgreSQL servers, that the alarms stream gets one copy per nats-server, that the
nats config routes to every node, that only the primary waits for a synchronous standby,
and that every file mounted from deploy/ exists. Exits 1 with one line per problem.
With --merged FILE it also writes the merged file, for the schema check."""
import copy
import pathlib
import re
import sys
from urllib.parse import parse_qs, urlsplit

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
deploy = root / "deploy"  # Compose resolves every relative path against the first file's folder


def load(name):
    data = copy.deepcopy(yaml.safe_load((deploy / name).read_text()))
    return {k: v for k, v in data.items() if not k.startswith("x-")}


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


def merge(base, override, path=()):
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
        elif isinstance(value, dict):
            merged[key] = merge(merged[key], value, here)
        elif isinstance(value, list) and isinstance(merged[key], list):
            merged[key] = merged[key] + [v for v in value if v not in merged[key]]
        else:
            merged[key] = value
    return merged


def interpolate(text):
    """Compose's ${VAR:-default} with nothing set in the environment: the default."""
    return re.sub(r"\$\{[A-Z0-9_]+(?::?-([^}]*))?\}", lambda m: m.group(1) or "", str(text))


def env_file(name):
    values = {}
    for line in (deploy / name).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


compose = merge(load("compose.yaml"), load("compose.cluster.yaml"))
services = compose["services"]
problems = []

# depends_on: the service exists and starts whenever its dependant does (it has no
# profiles, or every profile that starts the dependant).
dependants = {}
for name, service in services.items():
    profiles = set(service.get("profiles", []))
    for dependency in as_mapping(service.get("depends_on")):
        if dependency not in services:
            problem = f"depends_on names {dependency}, which is not a service"
        elif (needed := set(services[dependency].get("profiles", []))) and not (
                profiles and profiles <= needed):
            problem = f"depends_on names {dependency}, which starts only with {sorted(needed)}"
        else:
            continue
        dependants.setdefault(problem, []).append(name)
problems += [f"{problem} ({', '.join(names)})" for problem, names in dependants.items()]

# Files mounted from deploy/, and named volumes declared.
declared = set(compose.get("volumes") or {})
for name, service in services.items():
    for entry in service.get("volumes", []):
        if isinstance(entry, dict):
            source = entry.get("source") or ""
        else:
            source = entry.split(":")[0] if ":" in entry else ""  # none: an anonymous volume
        if source.startswith((".", "/")):
            if not (deploy / source).exists():
                problems.append(f"{name} mounts {source}, which does not exist in deploy/")
        elif source and source not in declared:
            problems.append(f"{name} mounts the volume {source}, which is not declared")

def from_image(prefix):
    return {n: s for n, s in services.items() if str(s.get("image", "")).startswith(prefix)}


nats = from_image("${MOWDECK_NATS_IMAGE")
postgres = from_image("${MOWDECK_POSTGRES_IMAGE")
mowdeck = {n: s for n, s in services.items() if "build" in s or s.get("image") == "mowdeck:latest"}

# nats-server nodes: all started by default, each with its own name and store, routes to all.
if len(nats) < 3:
    problems.append(f"{len(nats)} nats-server services; a JetStream cluster needs 3")
names, stores = {}, {}
for name, service in nats.items():
    if service.get("profiles"):
        problems.append(f"nats node {name} has profiles {service['profiles']}: it must always run")
    server = as_mapping(service.get("environment")).get("NATS_SERVER_NAME")
    if not server or server in names.values():
        problems.append(f"nats node {name} has no NATS_SERVER_NAME of its own ({server})")
    names[name] = server
    mounts = {volume_target(e): e for e in service.get("volumes", [])}
    store = str(mounts.get("/data", "")).split(":")[0]
    if not store or store in stores.values():
        problems.append(f"nats node {name} has no JetStream store of its own ({store or 'none'})")
    stores[name] = store
    test = (service.get("healthcheck") or {}).get("test", "")
    test = test if isinstance(test, str) else " ".join(test)
    if "js-enabled-only=true" not in test:
        problems.append(f"nats node {name} health check waits for a meta leader: nodes would "
                        "wait for each other (use /healthz?js-enabled-only=true)")
    config = str(mounts.get("/etc/nats/nats.conf", "")).split(":")[0]
    path = deploy / config
    if not config or not path.is_file():
        problems.append(f"nats node {name} mounts no config at /etc/nats/nats.conf")
        continue
    text = path.read_text()
    routes = set(re.findall(r"nats-route://([A-Za-z0-9._-]+):6222", text))
    if routes != set(nats):
        problems.append(f"{config} routes to {sorted(routes)}, the nats nodes are {sorted(nats)}")
    for needed in ("server_name: $NATS_SERVER_NAME", "sync_interval: always", "port: 6222"):
        if needed not in text:
            problems.append(f"{config} lacks `{needed}`")

# PostgreSQL: one primary (REPLICATE_FROM empty) waiting for the standby that clones it, and
# a standby without synchronous_standby_names (promoted, it would wait for nobody).
def pg_env(service):
    return {k: interpolate(v) for k, v in as_mapping(service.get("environment")).items()}


def setting(service, key):
    found = [interpolate(a).split("=", 1)[1] for a in service.get("command") or []
             if interpolate(a).startswith(key + "=")]
    return found[-1] if found else None


primaries = [n for n, s in postgres.items() if not pg_env(s).get("REPLICATE_FROM")]
if len(postgres) < 2 or len(primaries) != 1:
    problems.append(f"PostgreSQL services {sorted(postgres)}: want one primary "
                    f"(REPLICATE_FROM empty) and a standby, got primaries {primaries}")
for name in primaries:
    waits_for = setting(postgres[name], "synchronous_standby_names")
    standbys = {pg_env(s).get("REPLICA_NAME"): n for n, s in postgres.items()
                if pg_env(s).get("REPLICATE_FROM") == name}
    if waits_for not in standbys:
        problems.append(f"{name} has synchronous_standby_names={waits_for}; the standbys "
                        f"cloned from it call themselves {sorted(filter(None, standbys))}")
    if setting(postgres[name], "synchronous_commit") in ("off", "local"):
        problems.append(f"{name} does not commit synchronously by default")
    if not any(volume_target(e).startswith("/docker-entrypoint-initdb.d/")
               for e in postgres[name].get("volumes", [])):
        problems.append(f"{name} does not create the replication role on its first start")
for name, service in postgres.items():
    if name not in primaries and setting(service, "synchronous_standby_names"):
        problems.append(f"standby {name} sets synchronous_standby_names: promoted, every "
                        "commit would wait for a standby that does not exist")

# Every Mowdeck process: every nats node, both PostgreSQL servers, a copy per nats node.
# One line per problem, with the services that have it.
by_problem = {}
for name, service in mowdeck.items():
    found = []
    env = {}
    files = service.get("env_file", [])
    for file in [files] if isinstance(files, str) else files:
        env.update(env_file(file if isinstance(file, str) else file["path"]))
    env.update({k: str(v) for k, v in as_mapping(service.get("environment")).items()})
    hosts = {urlsplit(u.strip()).hostname for u in env.get("MOWDECK_NATS_URL", "").split(",")}
    if hosts != set(nats):
        found.append(f"MOWDECK_NATS_URL names {sorted(filter(None, hosts))}, "
                     f"the nats nodes are {sorted(nats)}")
    url = env.get("MOWDECK_DATABASE_URL", "")
    netloc = url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]
    db_hosts = {h.rsplit(":", 1)[0] for h in netloc.split(",")}
    if db_hosts != set(postgres):
        found.append(f"MOWDECK_DATABASE_URL names {sorted(db_hosts)}, "
                     f"the PostgreSQL servers are {sorted(postgres)}")
    if parse_qs(urlsplit(url).query).get("target_session_attrs") != ["read-write"]:
        found.append("MOWDECK_DATABASE_URL lacks target_session_attrs=read-write")
    if env.get("MOWDECK_JETSTREAM_REPLICAS") != str(len(nats)):
        found.append(f"MOWDECK_JETSTREAM_REPLICAS is {env.get('MOWDECK_JETSTREAM_REPLICAS')}, "
                     f"want {len(nats)} (one copy per nats node)")
    for problem in found:
        by_problem.setdefault(problem, []).append(name)
problems += [f"{problem} ({', '.join(names)})" for problem, names in by_problem.items()]

if len(sys.argv) == 3 and sys.argv[1] == "--merged":
    pathlib.Path(sys.argv[2]).write_text(yaml.safe_dump(compose, sort_keys=False))
for problem in dict.fromkeys(problems):  # a file several services mount: once
    print("check-compose-cluster:", problem)
if problems:
    sys.exit(1)
print(f"check-compose-cluster: ok ({len(nats)} nats nodes, {len(postgres)} PostgreSQL "
      f"servers, {len(mowdeck)} Mowdeck services)")

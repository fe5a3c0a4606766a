#!/usr/bin/env python3
"""Checks what deploy/compose.cluster.yaml needs of itself, merged on top of
deploy/compose.yaml as Compose merges them (scripts/lib/compose_files.py; no Docker engine
runs here): that every Mowdeck process is pointed at every nats-server and both PostgreSQL
servers (the database URL is the secret file scripts/make-secrets.sh makes for the
cluster), that the alarms stream gets one copy per nats-server, that the nats config
routes to every node, and that only the primary waits for a synchronous standby.
scripts/check-compose.py checks the rest of the merged files, profile by profile
(dependencies, secrets, files, hardening). Exits 1 with one line per problem. With
--merged FILE it also writes the merged file."""
import pathlib
import re
import sys
from urllib.parse import parse_qs, urlsplit

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "lib"))
from compose_files import (  # noqa: E402
    as_mapping, compose as merged_files, deploy, generated_secrets, interpolate,
    path_in_deploy, secret_target, service_environment, volume_target)


def plain(text):
    """A value with nothing set in the environment: its default."""
    return interpolate(str(text), {})


compose = merged_files(["compose.yaml", "compose.cluster.yaml"],
                       {"MOWDECK_SECRETS_DIR": generated_secrets()})
services = compose["services"]
problems = []

def same_image_as(name):
    """The services running the image compose.yaml gives `name` (its repository)."""
    repository = str(services[name]["image"]).rsplit(":", 1)[0]
    return {n: s for n, s in services.items()
            if str(s.get("image", "")).rsplit(":", 1)[0] == repository}


nats = same_image_as("nats")
postgres = same_image_as("postgres")
mowdeck = {n: s for n, s in services.items() if "build" in s}

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
    return {k: plain(v) for k, v in as_mapping(service.get("environment")).items()}


def setting(service, key):
    found = [plain(a).split("=", 1)[1] for a in service.get("command") or []
             if plain(a).startswith(key + "=")]
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
    env = service_environment(service)
    hosts = {urlsplit(u.strip()).hostname for u in env.get("MOWDECK_NATS_URL", "").split(",")}
    if hosts != set(nats):
        found.append(f"MOWDECK_NATS_URL names {sorted(filter(None, hosts))}, "
                     f"the nats nodes are {sorted(nats)}")
    # The URL is a secret file: the one scripts/make-secrets.sh makes for the secret mounted
    # where MOWDECK_DATABASE_URL_FILE points.
    url = env.get("MOWDECK_DATABASE_URL", "")
    for entry in service.get("secrets", []):
        source = entry["source"] if isinstance(entry, dict) else entry
        file = (compose.get("secrets") or {}).get(source, {}).get("file")
        if secret_target(entry) == env.get("MOWDECK_DATABASE_URL_FILE") and file:
            url = path_in_deploy(file).read_text().strip()
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

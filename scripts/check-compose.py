#!/usr/bin/env python3
"""Checks that deploy/compose.yaml names only things that exist: every command is a product
of Package.swift built by the Dockerfile, every variable of the env file is read by the
code and documented, and the ports and health checks match the configured listen
addresses. Exits 1 with one line per problem."""
import pathlib
import re
import sys

import yaml

root = pathlib.Path(__file__).resolve().parent.parent
compose = yaml.safe_load((root / "deploy/compose.yaml").read_text())
dockerfile = (root / "deploy/Dockerfile").read_text()
package = (root / "Package.swift").read_text()
readme = (root / "README.md").read_text()
sources = "\n".join(p.read_text() for p in (root / "Sources").rglob("*.swift"))
env = {}
for line in (root / "deploy/mowdeck.env").read_text().splitlines():
    line = line.strip()
    if line and not line.startswith("#"):
        key, _, value = line.partition("=")
        env[key] = value

problems = []
products = set(re.findall(r'\.executable\(name: "([^"]+)"', package)) | set(
    re.findall(r'\.executableTarget\(\s*name: "([^"]+)"', package))

for name, service in compose["services"].items():
    command = service.get("command")
    if "image" in service and "build" not in service:
        continue  # postgres, nats: images from their vendors
    if not command:
        problems.append(f"service {name} has no command")
        continue
    executable = command[0]
    if executable not in products:
        problems.append(f"service {name} runs {executable}, which Package.swift does not build")
    if executable not in dockerfile:
        problems.append(f"service {name} runs {executable}, which the Dockerfile does not copy")

for key in env:
    if f'"{key}"' not in sources:
        problems.append(f"{key} is set in deploy/mowdeck.env but no code reads it")
    if key not in readme:
        problems.append(f"{key} is set in deploy/mowdeck.env but README.md does not document it")

for key in re.findall(r'"(MOWDECK_[A-Z0-9_]+)"', sources):
    if key.startswith("MOWDECK_TEST_") or key in ("MOWDECK_BIN_DIR",):
        continue
    if key not in readme:
        problems.append(f"the code reads {key}, which README.md does not document")

def port(listen):
    return listen.rsplit(":", 1)[1]

serve_port = port(env.get("MOWDECK_NOTIFICATIONS_HTTP_LISTEN", "0.0.0.0:8080"))
for mapping in compose["services"]["serve"].get("ports", []):
    if mapping.split(":")[-1] != serve_port:
        problems.append(f"serve publishes {mapping} but listens on {serve_port}")
metrics_port = port(env.get("MOWDECK_METRICS_LISTEN", "0.0.0.0:9090"))
for name, service in compose["services"].items():
    if "build" not in service and "<<" not in service and "image" in service and name in ("postgres", "nats"):
        continue
    test = " ".join((service.get("healthcheck") or {}).get("test", []) or [])
    if "/healthz" in test and f":{metrics_port}/" not in test and f":{serve_port}/" not in test:
        problems.append(f"service {name} health check does not use the metrics port {metrics_port}")
if f"EXPOSE {metrics_port}" not in dockerfile:
    problems.append(f"the Dockerfile does not expose the metrics port {metrics_port}")

for problem in problems:
    print("check-compose:", problem)
if problems:
    sys.exit(1)
print(f"check-compose: ok ({len(compose['services'])} services, {len(env)} variables)")

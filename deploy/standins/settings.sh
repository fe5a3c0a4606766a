# Sourced by scripts/check-image.sh and scripts/check-stack.sh with --standins: the local
# stand-ins that scripts/make-standin-images.sh builds, under their own names so that they
# never shadow the vendors' images on a machine that can also pull those (ADR 0020).
standin_build_args=(
  --build-arg BUILD_IMAGE=mowdeck-standin/swift:6.3-bookworm
  --build-arg RUNTIME_IMAGE=mowdeck-standin/debian:bookworm
)
export MOWDECK_POSTGRES_IMAGE=mowdeck-standin/postgres:15-bookworm
export MOWDECK_NATS_IMAGE=mowdeck-standin/nats:2.9-bookworm
export MOWDECK_CADDY_IMAGE=mowdeck-standin/caddy:2.6-bookworm
# nats-server 2.9 does not know sync_interval: its configuration without that line.
standin_override=deploy/standins/nats/override.yaml

# A stand-in for swift:6.3-bookworm (mowdeck-standin/swift:6.3-bookworm): the local toolchain (context: /opt/swift) on the
# debootstrapped Debian 12, with the packages Swift's own image installs.
FROM mowdeck-standin/debian:bookworm
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libncurses6 \
      libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata \
      zlib1g-dev unzip ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY usr/ /usr/

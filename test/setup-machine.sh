#!/usr/bin/env bash
# Installs the Debian packages swarm's tests and local cluster use, when missing (run as root).
# Node.js 20+ and npm are expected to be present already.
set -euo pipefail
packages=(docker.io busybox-static debootstrap zookeeper etcd-server etcd-client docker-registry docker-compose python3-docker iproute2 openssl curl util-linux chromium fonts-dejavu-core systemd)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-machine: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v docker >/dev/null || { echo "setup-machine: the docker CLI is missing (apt-get install docker.io provides it)" >&2; exit 1; }

# kubectl 1.20 from Debian's kubernetes-client, for the Kubernetes double's tests with an old
# client. Installing the package would replace /usr/bin/kubectl (1.32), so it is only unpacked.
KUBECTL_OLD_DIR=/opt/swarm-test/kubernetes-client
if [ ! -x "$KUBECTL_OLD_DIR/usr/bin/kubectl" ]; then
  echo "setup-machine: unpacking kubernetes-client (kubectl 1.20) into $KUBECTL_OLD_DIR" >&2
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && { apt-get download -qq kubernetes-client 2>/dev/null || { apt-get update -qq && apt-get download -qq kubernetes-client; }; })
  mkdir -p "$KUBECTL_OLD_DIR"
  dpkg -x "$tmp"/kubernetes-client_*.deb "$KUBECTL_OLD_DIR"
  rm -rf "$tmp"
fi

# Today's Docker toolchain from Debian trixie, beside bookworm's: dockerd 26.1 (Engine API 1.45)
# with containerd 1.7, Compose v2 and buildx as docker CLI plugins. Unpacked, never installed: the
# system keeps its dockerd 20.10 and docker-compose 1.29, which the other suites use. Trixie's runc
# needs a newer glibc than this system's, so bin/ holds trixie's daemons with the system's runc and
# docker-init, and goes first on the 26.1 dockerd's PATH (test/testbed/testbed.sh --engine 26.1).
# docker-config/cli-plugins/ is a DOCKER_CONFIG layout for tests, never the user's own ~/.docker.
TRIXIE_DIR=/opt/swarm-test/docker-trixie
TRIXIE_PACKAGES=(docker.io containerd docker-compose docker-buildx)
trixie_ready() {
  [ -x "$TRIXIE_DIR/bin/dockerd" ] && [ -x "$TRIXIE_DIR/bin/containerd" ] && [ -e "$TRIXIE_DIR/bin/runc" ] &&
    [ -x "$TRIXIE_DIR/docker-config/cli-plugins/docker-compose" ] && [ -x "$TRIXIE_DIR/docker-config/cli-plugins/docker-buildx" ]
}
if ! trixie_ready; then
  echo "setup-machine: unpacking Debian trixie's ${TRIXIE_PACKAGES[*]} into $TRIXIE_DIR" >&2
  # the mirror the system's own sources use (its debian suites, not debian-security)
  mirror=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
    sed -n -E 's#^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)([a-z]+://[^[:space:]]+/debian)/?([[:space:]].*)?$#\3#p' |
    awk 'NR == 1')
  mirror=${mirror:-http://deb.debian.org/debian}
  tmp=$(mktemp -d)
  # apt's download sandbox (user _apt) must reach the folders it writes into
  chmod 755 "$tmp"
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/debs"
  chmod 777 "$tmp/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$tmp/sources.list"
  # a private apt state: the system's sources, lists and cache stay untouched
  apt_trixie=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache")
  apt-get "${apt_trixie[@]}" update -qq </dev/null
  (cd "$tmp/debs" && apt-get "${apt_trixie[@]}" download -qq "${TRIXIE_PACKAGES[@]}" </dev/null)
  staging="$TRIXIE_DIR.new"
  rm -rf "$staging"
  mkdir -p "$staging/root" "$staging/bin" "$staging/docker-config/cli-plugins"
  for deb in "$tmp"/debs/*.deb; do dpkg -x "$deb" "$staging/root"; done
  for b in usr/sbin/dockerd usr/sbin/docker-proxy usr/bin/containerd usr/bin/containerd-shim-runc-v2; do
    ln -s "../root/$b" "$staging/bin/${b##*/}"
  done
  ln -s "$(command -v runc)" "$staging/bin/runc"
  ln -s "$(command -v docker-init)" "$staging/bin/docker-init"
  cp "$staging/root/usr/libexec/docker/cli-plugins/docker-compose" "$staging/root/usr/libexec/docker/cli-plugins/docker-buildx" \
    "$staging/docker-config/cli-plugins/"
  rm -rf "$TRIXIE_DIR" && mv "$staging" "$TRIXIE_DIR"
  rm -rf "$tmp"
  trixie_ready || { echo "setup-machine: $TRIXIE_DIR is incomplete" >&2; exit 1; }
fi

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

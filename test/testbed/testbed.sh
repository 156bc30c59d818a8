#!/usr/bin/env bash
# A local multi-engine Docker testbed on one Linux machine (root): N real dockerd engines, each
# with its own bridge, data root, loopback address and hostname, plus the busybox:local image.
#
#   testbed.sh up [COUNT] [--first I] [--label k=v ...] [--tls DIR] [--engine 20.10|26.1]
#                                                                      start engines I..I+COUNT-1
#   testbed.sh down [--first I] [--count N] | --all                    stop them and remove their state
#   testbed.sh status                                                  list running engines
#   testbed.sh addrs [COUNT] [--first I]                               print their host:port list
#
# Engine i is named node<i>, listens on tcp://127.0.0.<i+1>:2375 (2376 with --tls) and on
# unix://$SWARM_TESTBED_DIR/engine<i>/docker.sock, and uses bridge br<i> on 172.30.<i>.1/24.
# --engine picks the dockerd: 20.10 is the system's (default), 26.1 is Debian trixie's, unpacked by
# test/setup-machine.sh into $SWARM_TRIXIE_DIR (default /opt/swarm-test/docker-trixie).
set -euo pipefail

ROOT=${SWARM_TESTBED_DIR:-/tmp/swarm-testbed}
TRIXIE=${SWARM_TRIXIE_DIR:-/opt/swarm-test/docker-trixie}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "testbed: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing: run 'apt-get install -y docker.io busybox-static iproute2' (as root)"; }

engine_dir() { echo "$ROOT/engine$1"; }
engine_ip() { echo "127.0.0.$(( $1 + 1 ))"; }

# The PATH a dockerd of this version runs with: it finds containerd, its shim, runc, docker-proxy
# and docker-init there, so trixie's daemons come first (with the system's runc, see setup-machine.sh).
engine_path() {
  case "$1" in
    20.10) echo "$PATH" ;;
    26.1)
      [ -x "$TRIXIE/bin/dockerd" ] || die "dockerd 26.1 is missing from $TRIXIE/bin: run 'bash test/setup-machine.sh' (as root)"
      echo "$TRIXIE/bin:$PATH" ;;
    *) die "unknown engine version $1 (20.10 or 26.1)" ;;
  esac
}

rootfs_tar() {
  local tar="$ROOT/busybox-rootfs.tar"
  if [ ! -s "$tar" ]; then
    local tmp; tmp=$(mktemp -d)
    # mktemp makes the root 0700: the image's / must be 0755 so containers running as a non-root user can reach /bin
    chmod 755 "$tmp"
    mkdir -p "$tmp/bin" "$tmp/www" "$tmp/tmp" "$tmp/etc"
    chmod 1777 "$tmp/tmp"
    cp "$(command -v busybox)" "$tmp/bin/busybox"
    for app in sh sleep echo cat ls httpd top env true false wc head tail grep mkdir rm touch date hostname ps kill seq yes printf dd nc wget; do
      ln -s busybox "$tmp/bin/$app"
    done
    echo 'hello from busybox:local' > "$tmp/www/index.html"
    echo 'root:x:0:0:root:/:/bin/sh' > "$tmp/etc/passwd"
    echo 'root:x:0:' > "$tmp/etc/group"
    # a private temp name: test files start engines concurrently and may all build it at once
    local part; part=$(mktemp "$ROOT/busybox-rootfs.XXXXXX")
    tar -C "$tmp" -cf "$part" . && mv "$part" "$tar"
    rm -rf "$tmp"
  fi
  echo "$tar"
}

start_engine() {
  local i=$1 labels=$2 tlsdir=$3 version=$4
  local d; d=$(engine_dir "$i")
  local ip; ip=$(engine_ip "$i")
  if [ -f "$d/pid" ] && kill -0 "$(cat "$d/pid")" 2>/dev/null; then
    echo "node$i already running on $ip" >&2; return 0
  fi
  local path; path=$(engine_path "$version")
  mkdir -p "$d/etc"
  echo "$version" > "$d/version"
  ip link show "br$i" >/dev/null 2>&1 || {
    ip link add "br$i" type bridge
    ip addr add "172.30.$i.1/24" dev "br$i"
  }
  ip link set "br$i" up
  local port=2375 tlsargs=""
  if [ -n "$tlsdir" ]; then
    port=2376
    tlsargs="--tlsverify --tlscacert $tlsdir/ca.pem --tlscert $tlsdir/server-cert.pem --tlskey $tlsdir/server-key.pem"
  fi
  local labelargs=""
  for l in $labels; do labelargs="$labelargs --label $l"; done
  # own UTS namespace (hostname nodeI) and /etc/docker (engine ID from key.json); a short
  # shutdown timeout so stopping an engine with running containers takes seconds, not 15 s
  PATH=$path setsid nohup unshare --uts --mount --propagation private sh -c "mount --bind $d/etc /etc/docker && hostname node$i && exec dockerd \
      --host unix://$d/docker.sock --host tcp://$ip:$port $tlsargs --ip $ip --iptables=false --bridge br$i \
      --storage-driver vfs --data-root $d/data --exec-root $d/exec --pidfile $d/pid --shutdown-timeout 2 $labelargs" \
      >"$d/dockerd.log" 2>&1 &
  echo "$port" > "$d/port"
}

wait_engine() {
  local i=$1 d; d=$(engine_dir "$i")
  for _ in $(seq 1 300); do
    if [ -S "$d/docker.sock" ] && docker -H "unix://$d/docker.sock" version >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  tail -20 "$d/dockerd.log" >&2
  die "node$i did not answer within 30 s (log: $d/dockerd.log)"
}

import_image() {
  local i=$1 d; d=$(engine_dir "$i")
  if ! docker -H "unix://$d/docker.sock" image inspect busybox:local >/dev/null 2>&1; then
    docker -H "unix://$d/docker.sock" import "$(rootfs_tar)" busybox:local >/dev/null
  fi
}

stop_engine() {
  local i=$1 d; d=$(engine_dir "$i")
  [ -d "$d" ] || return 0
  if [ -f "$d/pid" ]; then
    local pid; pid=$(cat "$d/pid")
    if kill -0 "$pid" 2>/dev/null; then
      # remove containers first so their mounts do not keep the data root busy
      docker -H "unix://$d/docker.sock" ps -aq 2>/dev/null | xargs -r docker -H "unix://$d/docker.sock" rm -f >/dev/null 2>&1 || true
      # and its networks: their bridges live in the host's namespace and would outlive the engine,
      # taking address pools from every later engine
      docker -H "unix://$d/docker.sock" network prune -f >/dev/null 2>&1 || true
      # dockerd lingers about 2 s after "Daemon shutdown complete" (its containerd winding down): with
      # nothing left to run, that wait is cut short (every test file stops its engines this way)
      local logged=0 containerd=""
      [ -f "$d/dockerd.log" ] && logged=$(stat -c %s "$d/dockerd.log")
      [ -f "$d/exec/containerd/containerd.pid" ] && containerd=$(cat "$d/exec/containerd/containerd.pid")
      kill "$pid"
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        if tail -c +"$(( logged + 1 ))" "$d/dockerd.log" 2>/dev/null | grep -q 'Daemon shutdown complete'; then
          kill -9 "$pid" ${containerd:+"$containerd"} 2>/dev/null || true
          break
        fi
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
  fi
  ip link del "br$i" 2>/dev/null || true
  umount -R "$d/data" 2>/dev/null || true
  rm -rf "$d"
}

parse_range() { # sets FIRST COUNT LABELS TLSDIR VERSION from args
  FIRST=1; COUNT=${1:-3}; LABELS=""; TLSDIR=""; VERSION=20.10
  [[ "${1:-}" =~ ^[0-9]+$ ]] && shift || COUNT=3
  while [ $# -gt 0 ]; do
    case "$1" in
      --first) FIRST=$2; shift 2 ;;
      --count) COUNT=$2; shift 2 ;;
      --label) LABELS="$LABELS $2"; shift 2 ;;
      --tls) TLSDIR=$2; shift 2 ;;
      --engine) case "$2" in 20|20.10) VERSION=20.10 ;; 26|26.1) VERSION=26.1 ;; *) die "unknown engine version $2 (20.10 or 26.1)" ;; esac; shift 2 ;;
      *) die "unknown option $1 (see the header of $0)" ;;
    esac
  done
}

cmd=${1:-}; shift || true
case "$cmd" in
  up)
    need dockerd; need busybox; need unshare; need ip; need docker
    [ "$(id -u)" = 0 ] || die "must run as root (it creates bridges and mounts)"
    parse_range "$@"
    mkdir -p "$ROOT"
    for i in $(seq "$FIRST" $(( FIRST + COUNT - 1 ))); do start_engine "$i" "$LABELS" "$TLSDIR" "$VERSION"; done
    pids=""
    for i in $(seq "$FIRST" $(( FIRST + COUNT - 1 ))); do wait_engine "$i"; import_image "$i" & pids="$pids $!"; done
    for p in $pids; do wait "$p"; done
    for i in $(seq "$FIRST" $(( FIRST + COUNT - 1 ))); do echo "node$i $(engine_ip "$i"):$(cat "$(engine_dir "$i")/port")"; done
    ;;
  down)
    if [ "${1:-}" = "--all" ]; then
      for d in "$ROOT"/engine*; do [ -d "$d" ] && stop_engine "${d##*engine}" & done
      wait
    else
      parse_range "$@"
      # engines stop independently: at once, not one after another
      for i in $(seq "$FIRST" $(( FIRST + COUNT - 1 ))); do stop_engine "$i" & done
      wait
    fi
    ;;
  status)
    for d in "$ROOT"/engine*; do
      [ -d "$d" ] || continue
      i=${d##*engine}
      if [ -f "$d/pid" ] && kill -0 "$(cat "$d/pid")" 2>/dev/null; then s=running; else s=stopped; fi
      echo "node$i $(engine_ip "$i"):$(cat "$d/port" 2>/dev/null || echo 2375) $s $(cat "$d/version" 2>/dev/null || echo 20.10)"
    done
    ;;
  addrs)
    parse_range "$@"
    out=""
    for i in $(seq "$FIRST" $(( FIRST + COUNT - 1 ))); do out="$out${out:+,}$(engine_ip "$i"):$(cat "$(engine_dir "$i")/port" 2>/dev/null || echo 2375)"; done
    echo "$out"
    ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; [ -z "$cmd" ] || exit 2 ;;
esac

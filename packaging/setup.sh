#!/usr/bin/env bash
# One set-up script for the README's two commands:
#   packaging/setup.sh run    install what is missing, build, and launch the GUI on the bundled model
#   packaging/setup.sh test   install what is missing, build with tests, and run every test
# Idempotent and quiet when everything is already installed.
set -euo pipefail

mode="${1:-}"
case "$mode" in
  run|test|build) ;;
  *) echo "usage: $0 run|test|build" >&2; exit 2 ;;
esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ASCVIZ_BUILD_DIR:-$here/build}"
jobs="${ASCVIZ_JOBS:-$(nproc)}"

APT_PACKAGES=(
  build-essential cmake pkg-config git ca-certificates fonts-dejavu-core
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins
  libtree-sitter-dev libgraphviz-dev nlohmann-json3-dev libtorch-dev libpcre2-dev
  libsqlite3-dev libutf8proc-dev libgtest-dev xvfb xauth
  # Debian's libtorch calls whatever libblas.so.3 is selected; OpenBLAS takes over that alternative
  # (priority 100 vs the reference BLAS's 10) and makes CPU scoring ~5x faster (ascviz-bench-model).
  libopenblas0-pthread
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)   # npm only fetches the tree-sitter grammars
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

gui=ON
tests=OFF
[ "$mode" = test ] && tests=ON
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DASCVIZ_BUILD_GUI=$gui -DASCVIZ_BUILD_TESTS=$tests \
  -Wno-dev --log-level=WARNING >/dev/null
echo "setup: building in $build ($jobs jobs)" >&2
cmake --build "$build" -j "$jobs" -- --no-print-directory -s

case "$mode" in
  run)
    shift
    exec "$build/app/ascviz" --model default "$@"
    ;;
  test)
    cd "$build"
    exec ctest --output-on-failure -j "$jobs" --timeout 900
    ;;
  build) ;;
esac

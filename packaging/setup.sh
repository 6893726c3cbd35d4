#!/usr/bin/env bash
# One set-up script for the README's two commands:
#   packaging/setup.sh run    install what is missing, build, and launch the GUI on the bundled model
#   packaging/setup.sh test   install what is missing, build with tests, and run every test
# Idempotent and quiet when everything is already installed.
#
# LibTorch (ASCVIZ_TORCH):
#   system   Debian's libtorch-dev 1.13 (CPU)                     build folder: build/
#   pytorch  PyPI's torch 2.11.0 (a CUDA build that also runs on the CPU), installed once into a virtual
#            environment under ~/.cache/ascviz (or $XDG_CACHE_HOME/ascviz)   build folder: build-pytorch/
#   unset    run: pytorch when nvidia-smi finds a GPU, else system;
#            test: both — the full suite (GUI included) on system, then on pytorch the tests whose outcome
#            depends on the LibTorch (ctest label runtime: model, batch runner, the CLI's model commands, the
#            live model tier).
# test builds with -Werror (ASCVIZ_WERROR) and checks the formatting (clang-format-14, ctest clang_format), and
# prints each stage's seconds and the total at the end (CI budget: 40 minutes on 2 cores from a fresh clone).
# test then builds the Python package (python/, docs/python.md) with `pip install ./python` into a venv that sees
# the pytorch venv's packages (no second torch download), reusing the pytorch build's objects through ccache,
# and runs its pytest suite against the pytorch build's CLI (ASCVIZ_PYTHON_TESTS=0 leaves this stage out).
# test then runs the robustness checks (docs/robustness.md), unless ASCVIZ_ROBUSTNESS=0:
#   fuzz        the libFuzzer targets (clang), their regression inputs replayed, then each fuzzed for
#               ASCVIZ_FUZZ_SECONDS (default 15), two targets at a time                    build-fuzz/
#   sanitizers  core, the CLI and their tests built with ASan + UBSan (gcc, system LibTorch)  build-asan/
#               (ASCVIZ_SANITIZER_TESTS=0 leaves this stage out)
# ASCVIZ_TORCH_PACKAGE=<site-packages>/torch uses an already installed PyTorch's LibTorch instead of the venv;
# ASCVIZ_LIVE_PYTHON=<python with transformers, tokenizers, torch> likewise for the live conformance tests.
set -euo pipefail

mode="${1:-}"
case "$mode" in
  run|test|build) ;;
  *) echo "usage: $0 run|test|build   (ASCVIZ_TORCH=system|pytorch picks the LibTorch)" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && shift

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_base="${ASCVIZ_BUILD_DIR:-$here/build}"
jobs="${ASCVIZ_JOBS:-$(nproc)}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ascviz"
TORCH_PYPI_VERSION=2.11.0

APT_PACKAGES=(
  build-essential cmake pkg-config git ca-certificates fonts-dejavu-core
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins
  libgraphviz-dev nlohmann-json3-dev libtorch-dev libpcre2-dev
  libsqlite3-dev libutf8proc-dev libssl-dev libcairo2-dev libgtest-dev xvfb xauth
  # oneDNN, the library Debian's LibTorch links, called directly for the CPU's linear layers (pre-packed weights).
  libdnnl-dev
  # pip fetches the pinned tree-sitter sources (cmake/AscvizGrammars.cmake) and PyPI's torch.
  python3 python3-pip python3-venv
  # Debian's libtorch calls whatever libblas.so.3 is selected; OpenBLAS takes over that alternative
  # (priority 100 vs the reference BLAS's 10) and makes CPU scoring ~5x faster (ascviz-bench-model).
  libopenblas0-pthread
)
# The test command also runs the scale-out test on a one-machine Slurm (tests/cluster, packaging/slurm-local.sh)
# and the fuzz targets (clang's libFuzzer).
if [ "$mode" = test ]; then
  APT_PACKAGES+=(slurmctld slurmd slurm-client munge)
  APT_PACKAGES+=(clang-format-14)
  # The shared HTML page is driven in a real browser (tests/share, ctest share_browser; docs/share.md).
  APT_PACKAGES+=(chromium)
  # The Python package's build reuses the pytorch build's objects (stage python).
  APT_PACKAGES+=(ccache)
  [ "${ASCVIZ_ROBUSTNESS:-1}" = 0 ] || APT_PACKAGES+=(clang libclang-rt-14-dev)
fi

# Stage times of the test command, printed as they end and together at the end.
stage_names=()
stage_secs=()
stage_start=$SECONDS
stage_begin() { stage_start=$SECONDS; }
stage_end() {
  local secs=$((SECONDS - stage_start))
  stage_names+=("$1")
  stage_secs+=("$secs")
  echo "setup: stage $1 took $secs s" >&2
}
stage_summary() {
  local i total=0 line=""
  for i in "${!stage_names[@]}"; do
    total=$((total + stage_secs[i]))
    line+="${stage_names[i]} ${stage_secs[i]} s, "
  done
  echo "setup: stage times: ${line}total $total s ($((total / 60)) min $((total % 60)) s)" >&2
}
stage_begin
# A command failing outside the tests (an install, a configure or a compile) ends the script at once (set -e);
# the trap then names the stage it was in.
current_stage=install
reported=
trap 'rc=$?; if [ "$rc" -ne 0 ] && [ -z "$reported" ]; then echo "setup: FAILED in stage $current_stage (exit $rc)" >&2; fi' EXIT

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The torch/ package folder of PyPI's torch, installed once into a cached virtual environment. The same
# venv holds the test-only references (transformers, tokenizers) that the live conformance tests run; the
# product never needs Python at run time. A changed requirement list updates the venv in place.
VENV_REQUIREMENTS=("torch==$TORCH_PYPI_VERSION" "numpy<3" "transformers==5.17.0" "tokenizers==0.23.2" "statsmodels==0.14.5" "ctranslate2==4.8.5" "pandas==2.3.3" "codebleu==0.7.0" "tree-sitter==0.22.3" "tree-sitter-python==0.23.6" "tree-sitter-java==0.23.5" "dowhy==0.14")
venv="$cache/venv-torch-$TORCH_PYPI_VERSION"
ensure_venv() {
  local want="${VENV_REQUIREMENTS[*]}"
  if [ "$(cat "$venv/.ascviz-requirements" 2>/dev/null)" != "$want" ]; then
    [ -x "$venv/bin/python" ] || { rm -rf "$venv"; python3 -m venv "$venv"; }
    echo "setup: installing $want from PyPI into $venv (torch's first install is ~2.5 GB)" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${VENV_REQUIREMENTS[@]}" >&2
    echo "$want" > "$venv/.ascviz-requirements"
  fi
}
pytorch_package() {
  if [ -n "${ASCVIZ_TORCH_PACKAGE:-}" ]; then
    echo "$ASCVIZ_TORCH_PACKAGE"
    return
  fi
  ensure_venv
  "$venv/bin/python" -c 'import os, torch; print(os.path.dirname(torch.__file__))'
}

# configure_and_build <torch> <build dir> <gui ON|OFF> <tests ON|OFF> [<slurm test ON|OFF>]
# (the test command builds with -Werror: ASCVIZ_WERROR=ON)
configure_and_build() {
  local torch="$1" dir="$2" gui="$3" tests="$4" werror=OFF
  [ "$mode" = test ] && werror=ON
  local torch_args=(-DASCVIZ_TORCH_PACKAGE=)
  if [ "$torch" = pytorch ]; then
    torch_args=(-DASCVIZ_TORCH_PACKAGE="$(pytorch_package)")
  fi
  # ccache, when installed: the Python package's build (same sources, same flags) reuses these objects.
  local launcher_args=()
  if command -v ccache >/dev/null 2>&1; then
    launcher_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    # The test command's builds (release, the Python package, ASan, fuzz) take several GB of objects.
    export CCACHE_BASEDIR="$here" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-16G}"
  fi
  local live_args=()
  if [ "$tests" = ON ]; then
    # The live conformance tier (tests/live) runs transformers from the same venv (or ASCVIZ_LIVE_PYTHON's).
    if [ -n "${ASCVIZ_LIVE_PYTHON:-}" ]; then
      live_args=(-DASCVIZ_LIVE_PYTHON="$ASCVIZ_LIVE_PYTHON")
    else
      ensure_venv
      live_args=(-DASCVIZ_LIVE_PYTHON="$venv/bin/python")
    fi
    # The live tier's cases, made once for both builds (tests/model/CMakeLists.txt).
    live_args+=(-DASCVIZ_LIVE_CASES_DIR="$build_base-live-cases")
  fi
  cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DASCVIZ_BUILD_GUI="$gui" -DASCVIZ_BUILD_TESTS="$tests" \
    -DASCVIZ_SLURM_TESTS="${5:-OFF}" -DASCVIZ_WERROR="$werror" "${torch_args[@]}" "${live_args[@]}" "${launcher_args[@]}" \
    -Wno-dev --log-level=WARNING >/dev/null
  echo "setup: building in $dir ($torch LibTorch, $jobs jobs)" >&2
  cmake --build "$dir" -j "$jobs" -- --no-print-directory -s
}

# The robustness checks of the test command (docs/robustness.md). The sanitizers' run-time options: a leak
# and any undefined behaviour fail the test that shows them. LeakSanitizer's suppressions (third-party code
# only, each with its reason) are in tests/sanitizers/lsan.supp.
ASCVIZ_ASAN_OPTIONS="${ASCVIZ_ASAN_OPTIONS:-detect_leaks=1}"
ASCVIZ_UBSAN_OPTIONS="${ASCVIZ_UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
ASCVIZ_LSAN_OPTIONS="${ASCVIZ_LSAN_OPTIONS:-suppressions=$here/tests/sanitizers/lsan.supp:print_suppressions=0}"
robustness() {
  local status=0 dir="$build_base-asan"
  # ccache, when installed, as for the other builds; -g1 puts the folder in the objects' line tables, so
  # without hash_dir a clone at another path reuses them too (its stack traces then name the first path).
  local launcher_args=()
  if command -v ccache >/dev/null 2>&1; then
    launcher_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=1
  fi
  # ASan + UBSan: core, the CLI and their tests (no GUI; not the live tier, Slurm, the slow CLI tests or the CLI's
  # end-to-end feature flows, label flow: tests/cli/CMakeLists.txt says why), gcc,
  # Debug at -O1 with line tables only (-g1: the reports' stack traces need no more; ~27 % less compile time
  # than -g, docs/robustness.md).
  # LeakSanitizer stays on: a leak is a finding. UBSan stops at the first report.
  if [ "${ASCVIZ_SANITIZER_TESTS:-1}" != 0 ]; then
  stage_begin
  cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DASCVIZ_SANITIZE=address,undefined -DASCVIZ_BUILD_GUI=OFF -DASCVIZ_BUILD_TESTS=ON -DASCVIZ_BUILD_BENCH=OFF \
    -DASCVIZ_SLOW_TESTS=OFF -DASCVIZ_FLOW_TESTS=OFF -DASCVIZ_SLURM_TESTS=OFF -DASCVIZ_TORCH_PACKAGE= -DASCVIZ_LIVE_PYTHON= \
    "${launcher_args[@]}" \
    -Wno-dev --log-level=WARNING >/dev/null
  echo "setup: building with ASan + UBSan in $dir ($jobs jobs)" >&2
  cmake --build "$dir" -j "$jobs" -- --no-print-directory -s
  # No LD_PRELOAD: the ASan runtime must come first in the executables' own link order (gcc puts libasan
  # there), ahead of LibTorch, OpenBLAS and the OpenMP runtime; a preloaded library would be ahead of it.
  # The tests get a temporary folder of their own, as in the normal run.
  local test_tmp
  test_tmp="$(mktemp -d "${TMPDIR:-/tmp}/ascviz-ctest-XXXXXX")"
  chmod 1777 "$test_tmp"
  (cd "$dir" && env -u LD_PRELOAD TMPDIR="$test_tmp" ASAN_OPTIONS="$ASCVIZ_ASAN_OPTIONS" \
     UBSAN_OPTIONS="$ASCVIZ_UBSAN_OPTIONS" LSAN_OPTIONS="$ASCVIZ_LSAN_OPTIONS" \
     ctest --output-on-failure -j "$jobs" --timeout 900 -LE 'live|slurm|slow|flow') || status=1
  rm -rf "$test_tmp"
  stage_end sanitizers
  fi

  # libFuzzer (clang): build the fuzz targets, replay their regressions, fuzz each for a bounded time (two
  # targets at a time, one per core).
  stage_begin
  dir="$build_base-fuzz"
  CC=clang CXX=clang++ cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASCVIZ_FUZZ=ON \
    -DASCVIZ_BUILD_GUI=OFF -DASCVIZ_BUILD_TESTS=OFF -DASCVIZ_BUILD_BENCH=OFF -DASCVIZ_TORCH_PACKAGE= \
    "${launcher_args[@]}" -Wno-dev --log-level=WARNING >/dev/null
  echo "setup: building the fuzz targets in $dir ($jobs jobs)" >&2
  cmake --build "$dir" --target ascviz_fuzzers -j "$jobs" -- --no-print-directory -s
  ASCVIZ_FUZZ_JOBS="$jobs" bash "$here/tests/fuzz/run.sh" "$dir" "${ASCVIZ_FUZZ_SECONDS:-15}" >&2 || status=1
  stage_end fuzz
  return $status
}

# The Python package (stage python): `pip install ./python` into $cache/venv-python, a venv of the pytorch
# venv's interpreter that sees that venv's packages through a .pth file (torch, pandas, tqdm), with the build
# tools (nanobind, scikit-build-core, pytest) of its own; built in build-python/ with the pytorch build's
# compilers and flags so that ccache serves the pytorch build's objects; then pytest python/tests, whose API
# results are compared with the pytorch build's CLI.
python_package() {
  local pyvenv="$cache/venv-python" torch_pkg site compiler_args=() launcher_args=()
  torch_pkg="$(pytorch_package)"
  site="$(dirname "$torch_pkg")"
  local base_python="${ASCVIZ_LIVE_PYTHON:-$venv/bin/python}"
  if [ ! -x "$pyvenv/bin/python" ]; then
    "$base_python" -m venv "$pyvenv"
  fi
  local pysite
  pysite="$("$pyvenv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$site" > "$pysite/ascviz-torch-venv.pth"
  local tools=("nanobind>=2.0" "scikit-build-core>=0.10" "pytest")
  if [ "$(cat "$pyvenv/.ascviz-requirements" 2>/dev/null)" != "${tools[*]}" ]; then
    "$pyvenv/bin/python" -m pip install --quiet --disable-pip-version-check "${tools[@]}" >&2
    echo "${tools[*]}" > "$pyvenv/.ascviz-requirements"
  fi
  local cmcache="$(build_dir pytorch)/CMakeCache.txt" c
  for c in CMAKE_C_COMPILER CMAKE_CXX_COMPILER; do
    local v
    v="$(sed -n "s/^$c:FILEPATH=//p" "$cmcache" 2>/dev/null)"
    [ -n "$v" ] && compiler_args+=(-C "cmake.define.$c=$v")
  done
  if command -v ccache >/dev/null 2>&1; then
    launcher_args=(-C cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache -C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="$here"
  fi
  echo "setup: pip install ./python (build-python/, LibTorch $torch_pkg)" >&2
  (cd "$here" && CMAKE_GENERATOR="Unix Makefiles" CMAKE_BUILD_PARALLEL_LEVEL="$jobs" \
     "$pyvenv/bin/python" -m pip install --quiet --disable-pip-version-check --no-build-isolation \
     -C build-dir="$build_base-python" -C cmake.define.ASCVIZ_WERROR=ON \
     -C cmake.define.ASCVIZ_TORCH_PACKAGE="$torch_pkg" "${compiler_args[@]}" "${launcher_args[@]}" ./python >&2) || return 1
  local test_tmp rc=0
  test_tmp="$(mktemp -d "${TMPDIR:-/tmp}/ascviz-pytest-XXXXXX")"
  (cd "$here" && TMPDIR="$test_tmp" ASCVIZ_CLI="$(build_dir pytorch)/app/ascviz-cli" \
     "$pyvenv/bin/python" -m pytest -q -p no:cacheprovider python/tests) || rc=1
  rm -rf "$test_tmp"
  return $rc
}

build_dir() { if [ "$1" = pytorch ]; then echo "$build_base-pytorch"; else echo "$build_base"; fi; }

torch="${ASCVIZ_TORCH:-}"
case "$torch" in
  ""|system|pytorch) ;;
  *) echo "setup: ASCVIZ_TORCH must be system or pytorch, not '$torch'" >&2; exit 2 ;;
esac

case "$mode" in
  run|build)
    if [ -z "$torch" ]; then
      if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then torch=pytorch; else torch=system; fi
    fi
    configure_and_build "$torch" "$(build_dir "$torch")" ON OFF
    if [ "$mode" = run ]; then
      exec "$(build_dir "$torch")/app/ascviz" --model default "$@"
    fi
    ;;
  test)
    [ -n "${ASCVIZ_LIVE_PYTHON:-}" ] || ensure_venv
    stage_end install
    builds=("$torch")
    [ -z "$torch" ] && builds=(system pytorch)
    status=0
    failed=() # the stages whose tests failed, named at the end
    for t in "${builds[@]}"; do
      # The GUI and its tests, and the Slurm test, once (on the first build); core, CLI, model and eval
      # tests on every build.
      gui=OFF
      [ "$t" = "${builds[0]}" ] && gui=ON
      dir="$(build_dir "$t")"
      stage_begin
      current_stage="$t"
      configure_and_build "$t" "$dir" "$gui" ON "$gui"
      # The first build runs every test; a further build only those whose outcome depends on the LibTorch.
      labels=()
      [ "$t" = "${builds[0]}" ] || labels=(-L runtime)
      echo "setup: testing the $t LibTorch build ($("$dir/app/ascviz-cli" --version | sed -n 2p))" >&2
      # The tests run with a temporary folder of their own, which must be empty afterwards: every test
      # removes what it made (also when it fails).
      test_tmp="$(mktemp -d "${TMPDIR:-/tmp}/ascviz-ctest-XXXXXX")"
      chmod 1777 "$test_tmp" # like /tmp: the read-only fault test runs the CLI as another user
      (cd "$dir" && TMPDIR="$test_tmp" ctest --output-on-failure -j "$jobs" --timeout 900 "${labels[@]}") ||
        { status=1; failed+=("$t"); }
      grep -h -e "^live conformance" -e "^tokenizer differential (" -e "^causal conformance (" -e "^batch faults:" \
        "$dir/Testing/Temporary/LastTest.log" >&2 || true
      # The model runtime again with oneDNN held to older instruction sets (docs/robustness.md, "Instruction
      # sets"): an AVX-512 machine then runs the kernels an AVX2-only or SSE4.1-only CPU gets (issue 39: the
      # PyTorch build failed on every CPU without AVX-512 while CI passed on one with it). The live cases made
      # above are reused (-FS); the benchmark comparison is not repeated.
      # AVX2 (most users' CPUs): every runtime test; SSE41: the products themselves and the model conformance.
      # The live tier's variants are sampled there (every 4th, ASCVIZ_LIVE_STRIDE): the kernels an ISA selects depend
      # on the dtype and the products' shapes, which the sample covers, not on the family (all are compared above).
      # On a CPU without AVX-512 the first run already was the AVX2 run (oneDNN's best ISA there is AVX2):
      # it is not repeated.
      isa_reruns="${ASCVIZ_ISA_RERUNS:-AVX2 SSE41}"
      if [ -z "${ASCVIZ_ISA_RERUNS:-}" ] && ! grep -q -m1 '^flags.* avx512f' /proc/cpuinfo; then
        isa_reruns="SSE41"
        echo "setup: this CPU has no AVX-512: the run above was the AVX2 run" >&2
      fi
      for isa in $isa_reruns; do
        echo "setup: testing the $t LibTorch build's model runtime with ONEDNN_MAX_CPU_ISA=$isa" >&2
        isa_args=(-L runtime -E '^(live_make_cases|bench_hf_compare)$')
        [ "$isa" = AVX2 ] || isa_args=(-R '^test_(cpu_threads|model_conformance|model_live)$')
        (cd "$dir" && TMPDIR="$test_tmp" ONEDNN_MAX_CPU_ISA="$isa" ASCVIZ_LIVE_STRIDE=4 ctest --output-on-failure -j "$jobs" --timeout 900 \
           "${isa_args[@]}" -FS live_cases) || { status=1; failed+=("$t ($isa)"); }
      done
      left="$(find "$test_tmp" -mindepth 1 -maxdepth 1 -name 'ascviz-*' | head -20)"
      if [ -n "$left" ]; then
        echo "setup: tests left temporary folders behind:" >&2
        echo "$left" >&2
        status=1
        failed+=("$t (temporary files)")
      fi
      rm -rf "$test_tmp"
      stage_end "$t"
    done
    if [ "${ASCVIZ_PYTHON_TESTS:-1}" != 0 ] && [[ " ${builds[*]} " == *" pytorch "* ]]; then
      stage_begin
      current_stage=python
      python_package || { status=1; failed+=(python); }
      stage_end python
    fi
    if [ "${ASCVIZ_ROBUSTNESS:-1}" != 0 ]; then
      current_stage=robustness
      robustness || { status=1; failed+=("robustness (sanitizers or fuzz)"); }
    fi
    stage_summary
    if [ "$status" -ne 0 ]; then
      echo "setup: FAILED: ${failed[*]:-a stage} (see its output above); exit 1" >&2
    fi
    reported=1
    exit $status
    ;;
esac

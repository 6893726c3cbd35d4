# Finds every third-party dependency; a missing one stops configure with the Debian package to install.
include(FindPackageMessage)

macro(ascviz_require found what debpkg)
  if(NOT ${found})
    message(FATAL_ERROR "AsC-Viz: ${what} not found. On Debian 12 install it with:\n"
                        "  apt-get install ${debpkg}\n"
                        "(or run packaging/setup.sh, which installs everything).")
  endif()
endmacro()

find_package(Threads REQUIRED)
find_package(PkgConfig)
ascviz_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")

find_package(nlohmann_json 3.10 QUIET)
ascviz_require(nlohmann_json_FOUND "nlohmann_json" "nlohmann-json3-dev")

pkg_check_modules(PCRE2 QUIET IMPORTED_TARGET libpcre2-8)
ascviz_require(PCRE2_FOUND "PCRE2 (libpcre2-8)" "libpcre2-dev")

pkg_check_modules(GVC QUIET IMPORTED_TARGET libgvc libcgraph)
ascviz_require(GVC_FOUND "Graphviz (libgvc, libcgraph)" "libgraphviz-dev")

# Cairo: the PDF output of the paper figures and their text measurement (core/src/figure).
pkg_check_modules(CAIRO QUIET IMPORTED_TARGET cairo cairo-pdf)
ascviz_require(CAIRO_FOUND "Cairo (cairo, cairo-pdf)" "libcairo2-dev")

pkg_check_modules(SQLITE3 QUIET IMPORTED_TARGET sqlite3)
ascviz_require(SQLITE3_FOUND "SQLite 3" "libsqlite3-dev")

pkg_check_modules(UTF8PROC QUIET IMPORTED_TARGET libutf8proc)
ascviz_require(UTF8PROC_FOUND "utf8proc" "libutf8proc-dev")

# OpenSSL's libcrypto: SHA-256 for the checksums session files keep (base/sha256.h).
find_package(OpenSSL QUIET COMPONENTS Crypto)
ascviz_require(OpenSSL_FOUND "OpenSSL (libcrypto)" "libssl-dev")

# libtorch: Debian's CPU build, or the one in a PyTorch wheel (AscvizTorch.cmake).
include(AscvizTorch)

if(ASCVIZ_BUILD_TESTS)
  find_package(GTest QUIET)
  ascviz_require(GTest_FOUND "GoogleTest" "libgtest-dev")
endif()

if(ASCVIZ_BUILD_GUI)
  find_package(Qt6 QUIET COMPONENTS Widgets Charts Svg SvgWidgets Test Concurrent)
  ascviz_require(Qt6_FOUND "Qt 6 (Widgets, Charts, Svg, SvgWidgets, Test, Concurrent)"
                 "qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev")
endif()

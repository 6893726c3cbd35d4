# libFuzzer builds (ASCVIZ_FUZZ=ON, clang only; docs/robustness.md). Every translation unit of the build is
# compiled with coverage instrumentation and AddressSanitizer + UndefinedBehaviorSanitizer; the fuzz targets
# (tests/fuzz) link libFuzzer's main. Only the fuzz targets are meant to be built in such a build folder
# (`cmake --build B --target ascviz_fuzzers`); the normal gcc build is unaffected.
option(ASCVIZ_FUZZ "Build the libFuzzer targets (tests/fuzz) with ASan and UBSan; clang only" OFF)
if(ASCVIZ_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "AsC-Viz: ASCVIZ_FUZZ needs clang (libFuzzer). Configure with\n"
                        "  CC=clang CXX=clang++ cmake -DASCVIZ_FUZZ=ON …\n"
                        "(Debian: apt-get install clang libclang-rt-14-dev)")
  endif()
  if(ASCVIZ_SANITIZE)
    message(FATAL_ERROR "AsC-Viz: ASCVIZ_FUZZ already sanitizes (address,undefined); leave ASCVIZ_SANITIZE empty")
  endif()
  # UB is a finding, not a warning: -fno-sanitize-recover stops at the first report.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Third-party code compiled in this build (the tree-sitter grammars' generated parsers) is left out of the
# instrumentation: it only slows the build and the runs, and a report inside it would not be ours to fix.
function(ascviz_fuzz_exclude)
  if(ASCVIZ_FUZZ)
    foreach(t IN LISTS ARGN)
      target_compile_options(${t} PRIVATE -fno-sanitize=all)
    endforeach()
  endif()
endfunction()

# Warnings for the project's own targets (not for third-party sources such as grammars).
add_library(ascviz_warnings INTERFACE)
target_compile_options(ascviz_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>
  # GCC 12 reports -Wrestrict false positives inside std::string::assign at -O2 (GCC bug 105329).
  $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
# CI builds with -DASCVIZ_WERROR=ON (packaging/setup.sh test): a warning in the project's own code fails the build.
option(ASCVIZ_WERROR "Treat warnings in the project's own targets as errors" OFF)
if(ASCVIZ_WERROR)
  target_compile_options(ascviz_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Werror>)
endif()

# Sanitizers for the whole build (the `asan` preset): e.g. -DASCVIZ_SANITIZE=address,undefined.
set(ASCVIZ_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list for every target (empty = none)")
if(ASCVIZ_SANITIZE)
  add_compile_options(-fsanitize=${ASCVIZ_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${ASCVIZ_SANITIZE})
endif()

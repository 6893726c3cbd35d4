# Warnings for the project's own targets (not for third-party sources such as grammars).
add_library(ascviz_warnings INTERFACE)
target_compile_options(ascviz_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>
  # GCC 12 reports -Wrestrict false positives inside std::string::assign at -O2 (GCC bug 105329).
  $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)

# Warnings for the project's own targets (not for third-party sources such as grammars).
add_library(ascviz_warnings INTERFACE)
target_compile_options(ascviz_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)

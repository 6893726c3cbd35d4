# Fails when clang-format (CLANG_FORMAT) would change any C++ file of the project under SOURCE_ROOT
# (git-tracked or not; test data and build folders excluded). Run by ctest as `clang_format`.
file(GLOB_RECURSE files RELATIVE "${SOURCE_ROOT}"
     "${SOURCE_ROOT}/core/*.cpp" "${SOURCE_ROOT}/core/*.h" "${SOURCE_ROOT}/ui/*.cpp" "${SOURCE_ROOT}/ui/*.h"
     "${SOURCE_ROOT}/app/*.cpp" "${SOURCE_ROOT}/app/*.h" "${SOURCE_ROOT}/tests/*.cpp" "${SOURCE_ROOT}/tests/*.h"
     "${SOURCE_ROOT}/python/*.cpp" "${SOURCE_ROOT}/python/*.h")
list(FILTER files EXCLUDE REGEX "(^|/)data/")
list(LENGTH files n)
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${files}
                WORKING_DIRECTORY "${SOURCE_ROOT}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang-format: files not formatted (run clang-format-14 -i on them):\n${err}")
endif()
message(STATUS "clang-format: ${n} files formatted")

# tree-sitter grammars are not committed. At configure time each pinned grammar is taken from the npm
# registry (`npm pack`) into a cache folder when absent, its SHA-256 verified, extracted into the build
# tree and compiled as a static library. With a warm cache no network is needed.
set(ASCVIZ_GRAMMAR_CACHE "$ENV{HOME}/.cache/ascviz/grammars" CACHE PATH "Cache of grammar tarballs from npm")

# name  npm-version  sha256  language-symbol
set(ASCVIZ_GRAMMARS
  "python|0.23.6|aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a|tree_sitter_python")

file(MAKE_DIRECTORY "${ASCVIZ_GRAMMAR_CACHE}")
add_library(ascviz_grammars STATIC)
set_target_properties(ascviz_grammars PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 11)

foreach(entry IN LISTS ASCVIZ_GRAMMARS)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 gname)
  list(GET parts 1 gver)
  list(GET parts 2 gsha)
  set(tarball "${ASCVIZ_GRAMMAR_CACHE}/tree-sitter-${gname}-${gver}.tgz")
  if(EXISTS "${tarball}")
    file(SHA256 "${tarball}" have)
    if(NOT have STREQUAL gsha)
      message(STATUS "AsC-Viz: cached ${tarball} has a wrong checksum; fetching again")
      file(REMOVE "${tarball}")
    endif()
  endif()
  if(NOT EXISTS "${tarball}")
    find_program(NPM_EXECUTABLE npm)
    if(NOT NPM_EXECUTABLE)
      message(FATAL_ERROR "AsC-Viz: the tree-sitter-${gname} grammar is not cached in ${ASCVIZ_GRAMMAR_CACHE} "
                          "and npm is missing to fetch it. Install it with: apt-get install nodejs npm")
    endif()
    message(STATUS "AsC-Viz: fetching tree-sitter-${gname}@${gver} from npm")
    execute_process(COMMAND "${NPM_EXECUTABLE}" pack "tree-sitter-${gname}@${gver}" --loglevel=error
                            --pack-destination "${ASCVIZ_GRAMMAR_CACHE}"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS "${tarball}")
      message(FATAL_ERROR "AsC-Viz: npm pack tree-sitter-${gname}@${gver} failed: ${err}")
    endif()
    file(SHA256 "${tarball}" have)
    if(NOT have STREQUAL gsha)
      file(REMOVE "${tarball}")
      message(FATAL_ERROR "AsC-Viz: tree-sitter-${gname}@${gver} checksum mismatch (got ${have})")
    endif()
  endif()
  set(gdir "${CMAKE_BINARY_DIR}/grammars/${gname}")
  if(NOT EXISTS "${gdir}/package/src/parser.c")
    file(MAKE_DIRECTORY "${gdir}")
    file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${gdir}")
  endif()
  set(gsrc "${gdir}/package/src/parser.c")
  if(EXISTS "${gdir}/package/src/scanner.c")
    list(APPEND gsrc "${gdir}/package/src/scanner.c")
  endif()
  target_sources(ascviz_grammars PRIVATE ${gsrc})
  target_include_directories(ascviz_grammars PRIVATE "${gdir}/package/src")
endforeach()
target_compile_options(ascviz_grammars PRIVATE -w)

# The Python package's build (python/, issue 31; docs/python.md), on with -DASCVIZ_BUILD_PYTHON=ON, which
# `pip install ./python` sets (python/pyproject.toml: scikit-build-core builds this repository's CMake project
# with the GUI, tests and benchmarks off). Included before the dependencies: LibTorch is the one of the torch
# package of the target Python environment (PyPI's torch 2.11, cmake/AscvizTorch.cmake's wheel import), found
# through the interpreter: importable, else in its site-packages (pip's isolated build environment still
# reports the target environment's). -DASCVIZ_TORCH_PACKAGE= names another one.
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
if(NOT ASCVIZ_TORCH_PACKAGE)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
            "import importlib.util as u, os, sysconfig; s = u.find_spec('torch'); p = os.path.dirname(s.origin) if s and s.origin else os.path.join(sysconfig.get_paths()['purelib'], 'torch'); print(p if os.path.isdir(p) else '')"
    OUTPUT_VARIABLE _ascviz_torch_pkg OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0 OR NOT _ascviz_torch_pkg)
    message(FATAL_ERROR "AsC-Viz: no torch package in ${Python_EXECUTABLE}'s environment: install torch==2.11.* "
                        "there first (pip install torch==2.11.*), or pass "
                        "-C cmake.define.ASCVIZ_TORCH_PACKAGE=<site-packages>/torch")
  endif()
  set(ASCVIZ_TORCH_PACKAGE "${_ascviz_torch_pkg}" CACHE PATH "The torch/ package folder LibTorch comes from" FORCE)
endif()
execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                OUTPUT_VARIABLE nanobind_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "AsC-Viz: nanobind is not installed for ${Python_EXECUTABLE} (pip install nanobind)")
endif()
find_package(nanobind CONFIG REQUIRED)

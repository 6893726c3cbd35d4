# libtorch, as one INTERFACE target `ascviz_torch` (linked privately by core/src/model only).
#
# Two LibTorch builds are supported (issue 11):
#  - a LibTorch with a CMake package (TorchConfig.cmake): Debian's libtorch-dev 1.13 (CPU) by default, or
#    any other through CMAKE_PREFIX_PATH (a LibTorch zip on a machine with the CUDA toolkit);
#  - the LibTorch inside a PyTorch wheel, named by -DASCVIZ_TORCH_PACKAGE=<site-packages>/torch
#    (packaging/setup.sh does this for PyPI's torch 2.11.0). The wheel's TorchConfig.cmake insists on a
#    CUDA toolkit at configure time (Caffe2Config → FindCUDAToolkit) although nothing here compiles CUDA,
#    so a wheel is imported from its fixed layout instead: torch/include, torch/lib/lib{torch,torch_cpu,c10}
#    and, in a CUDA wheel, lib{torch_cuda,c10_cuda} linked --no-as-needed (as TorchConfig does) so that the
#    CUDA backend registers itself. Those libraries find the nvidia-* wheels through their own RPATH.
set(ASCVIZ_TORCH_PACKAGE "" CACHE PATH "A PyTorch wheel's torch/ package folder to take LibTorch from (empty: find_package(Torch))")

add_library(ascviz_torch INTERFACE)
if(ASCVIZ_TORCH_PACKAGE)
  set(_tp "${ASCVIZ_TORCH_PACKAGE}")
  # TORCH_VERSION_{MAJOR,MINOR,PATCH}: torch/headeronly/version.h in 2.x, the C++ API's version.h in 1.x.
  set(_vh "")
  foreach(c "${_tp}/include/torch/headeronly/version.h" "${_tp}/include/torch/csrc/api/include/torch/version.h")
    if(NOT _vh AND EXISTS "${c}")
      file(STRINGS "${c}" _major REGEX "#define TORCH_VERSION_MAJOR ")
      if(_major)
        set(_vh "${c}")
      endif()
    endif()
  endforeach()
  if(NOT _vh OR NOT EXISTS "${_tp}/lib/libtorch_cpu.so")
    message(FATAL_ERROR "AsC-Viz: ASCVIZ_TORCH_PACKAGE=${_tp} is not a PyTorch package folder with LibTorch "
                        "(no torch/version.h with TORCH_VERSION_MAJOR under include/, or no lib/libtorch_cpu.so)")
  endif()
  set(_parts "")
  foreach(part MAJOR MINOR PATCH)
    file(STRINGS "${_vh}" _line REGEX "#define TORCH_VERSION_${part} [0-9]+")
    string(REGEX REPLACE ".*TORCH_VERSION_${part} ([0-9]+).*" "\\1" _n "${_line}")
    list(APPEND _parts "${_n}")
  endforeach()
  list(JOIN _parts "." ASCVIZ_TORCH_VERSION)
  target_include_directories(ascviz_torch SYSTEM INTERFACE "${_tp}/include" "${_tp}/include/torch/csrc/api/include")
  target_compile_definitions(ascviz_torch INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
  # Every library is linked as "needed" even where no symbol is used directly (GCC here passes --as-needed):
  # libtorch_cuda/libc10_cuda register the CUDA backend from static initialisers, and without them in
  # NEEDED torch::cuda::is_available() is false on a GPU machine. One link-library feature wraps the whole
  # group in --push-state,--no-as-needed … --pop-state (plain flags in target_link_libraries are
  # de-duplicated by CMake and lost their place).
  # libstdc++ comes first: the wheel's libtorch.so, libtorch_cpu.so and libtorch_cuda.so export their own
  # statically linked copy of part of std::filesystem (remove_all, permissions, equivalent, …); when they
  # precede libstdc++ in the lookup order, our calls bind to that copy, which crashed
  # (std::filesystem::remove_all jumped to 0 in test_model_text).
  set(CMAKE_LINK_LIBRARY_USING_ascviz_needed "LINKER:--push-state,--no-as-needed" "<LINK_ITEM>" "LINKER:--pop-state")
  set(CMAKE_LINK_LIBRARY_USING_ascviz_needed_SUPPORTED TRUE)
  set(_libs stdc++)
  if(EXISTS "${_tp}/lib/libtorch_cuda.so")
    set(ASCVIZ_TORCH_CUDA ON)
    list(APPEND _libs "${_tp}/lib/libtorch_cuda.so" "${_tp}/lib/libc10_cuda.so")
  else()
    set(ASCVIZ_TORCH_CUDA OFF)
  endif()
  list(APPEND _libs "${_tp}/lib/libtorch.so" "${_tp}/lib/libtorch_cpu.so" "${_tp}/lib/libc10.so")
  list(JOIN _libs "," _libs_csv)
  target_link_libraries(ascviz_torch INTERFACE "$<LINK_LIBRARY:ascviz_needed,${_libs_csv}>")
  # Executables find the wheel's libraries at run time through this RPATH (also once installed).
  set(ASCVIZ_TORCH_LIBDIR "${_tp}/lib")
  set(ASCVIZ_TORCH_ORIGIN "PyTorch wheel ${_tp}")
  set(ASCVIZ_TORCH_KIND "PyTorch wheel")
else()
  find_package(Torch QUIET)
  ascviz_require(Torch_FOUND "libtorch (TorchConfig.cmake)" "libtorch-dev")
  set(ASCVIZ_TORCH_VERSION "${Torch_VERSION}")
  target_link_libraries(ascviz_torch INTERFACE "${TORCH_LIBRARIES}")
  target_include_directories(ascviz_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
  set(ASCVIZ_TORCH_LIBDIR "")
  set(ASCVIZ_TORCH_ORIGIN "${TORCH_INSTALL_PREFIX}")
  if(TORCH_INSTALL_PREFIX MATCHES "^/usr(/|$)")
    set(ASCVIZ_TORCH_KIND "system LibTorch")
  else()
    set(ASCVIZ_TORCH_KIND "LibTorch ${TORCH_INSTALL_PREFIX}")
  endif()
  if(TORCH_CUDA_LIBRARIES)
    set(ASCVIZ_TORCH_CUDA ON)
  else()
    set(ASCVIZ_TORCH_CUDA OFF)
  endif()
endif()
message(STATUS "AsC-Viz: libtorch ${ASCVIZ_TORCH_VERSION} (${ASCVIZ_TORCH_ORIGIN}), CUDA build: ${ASCVIZ_TORCH_CUDA}")

# oneDNN called directly for the CPU's float32 linear layers (core/src/model/kernels/dnnl_linear.*): Debian's libdnnl-dev,
# the same libdnnl.so.2 that Debian's LibTorch 1.13 links. Optional: without it the model room uses LibTorch's
# own paths. ASCVIZ_DNNL=OFF leaves it out.
option(ASCVIZ_DNNL "Call the system oneDNN (libdnnl-dev) for the CPU's linear layers when found" ON)
add_library(ascviz_dnnl INTERFACE)
set(ASCVIZ_DNNL_FOUND OFF)
if(ASCVIZ_DNNL)
  find_path(ASCVIZ_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
  find_library(ASCVIZ_DNNL_LIBRARY NAMES dnnl)
  if(ASCVIZ_DNNL_INCLUDE_DIR AND ASCVIZ_DNNL_LIBRARY)
    set(ASCVIZ_DNNL_FOUND ON)
    target_include_directories(ascviz_dnnl SYSTEM INTERFACE "${ASCVIZ_DNNL_INCLUDE_DIR}")
    target_link_libraries(ascviz_dnnl INTERFACE "${ASCVIZ_DNNL_LIBRARY}")
  endif()
endif()
message(STATUS "AsC-Viz: oneDNN for the CPU's linear layers: ${ASCVIZ_DNNL_FOUND} ${ASCVIZ_DNNL_LIBRARY}")

# loom_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# One library per top-level folder: target loom_<name>, alias loom::<name>, public headers under
# <name>/include/loom/<name>/, installed and exported as loom::<name>; private headers in <name>/src/.
#
# Symbols are hidden: a library exports only what its public headers declare between LOOM_API_BEGIN
# and LOOM_API_END (loom/codec/api.h), and the version script cmake/loom_exports.map keeps everything
# outside namespace loom (standard-library instantiations) local.
#
# The sources compile once, into the object library loom_<name>_objects that the library is made from;
# a module's own tests link those objects (and so reach its private headers and kernels) instead of the
# library.
function(loom_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  set(objects loom_${name}_objects)
  add_library(${objects} OBJECT ${ARG_SOURCES})
  set_target_properties(${objects} PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden
                        VISIBILITY_INLINES_HIDDEN ON)
  # src/ is PUBLIC here only: what links the objects is the module's own tests, which may reach its
  # private headers. Nothing else links them, so no other module sees this src/.
  target_include_directories(${objects} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_features(${objects} PUBLIC cxx_std_20)
  target_compile_options(${objects} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
  # Everything public: whoever links the objects links what they need.
  target_link_libraries(${objects} PUBLIC ${ARG_PUBLIC_DEPS} ${ARG_PRIVATE_DEPS})

  add_library(loom_${name} $<TARGET_OBJECTS:${objects}>)
  add_library(loom::${name} ALIAS loom_${name})
  set_target_properties(loom_${name} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME loom_${name}
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  target_include_directories(loom_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(loom_${name} PUBLIC cxx_std_20)
  target_link_libraries(loom_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  if(BUILD_SHARED_LIBS AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(map ${PROJECT_SOURCE_DIR}/cmake/loom_exports.map)
    target_link_options(loom_${name} PRIVATE "LINKER:--version-script=${map}")
    set_target_properties(loom_${name} PROPERTIES LINK_DEPENDS ${map})
  endif()
  install(TARGETS loom_${name} EXPORT loomTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# loom_module(NAME SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])
# One library per top-level folder: target loom_<name>, alias loom::<name>, public headers under
# <name>/include/loom/<name>/, installed and exported as loom::<name>.
function(loom_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(loom_${name} ${ARG_SOURCES})
  add_library(loom::${name} ALIAS loom_${name})
  set_target_properties(loom_${name} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME loom_${name}
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                        CXX_VISIBILITY_PRESET default)
  target_include_directories(loom_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_features(loom_${name} PUBLIC cxx_std_20)
  target_compile_options(loom_${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
  target_link_libraries(loom_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  install(TARGETS loom_${name} EXPORT loomTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# A static build of loom (BUILD_SHARED_LIBS=OFF) installs a package that consumers can use: builds and
# installs it into a fresh prefix, then builds tests/install/consumer against it twice, with
# find_package(loom) (whose config finds the third-party libraries the static libraries need) and with
# `pkg-config --cflags --libs loom` (whose Requires name them), and runs both. Run by ctest as install.static.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

run(${CMAKE_COMMAND} -G Ninja -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
    -DBUILD_SHARED_LIBS=OFF -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_BENCH=OFF -DLOOM_PYTHON=OFF
    -DLOOM_CUDA=OFF -DCMAKE_INSTALL_PREFIX=${prefix})
# The CLI links every module: building it builds every library the install needs.
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build --target loom)
run(${CMAKE_COMMAND} --install ${WORK_DIR}/build)
# The launcher and its commands library (every module linked in statically) work from the prefix.
run(${prefix}/bin/loom version)

set(consumer ${SOURCE_DIR}/tests/install/consumer)
run(${CMAKE_COMMAND} -G Ninja -S ${consumer} -B ${WORK_DIR}/consumer -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)

set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs loom OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config cannot read the installed loom.pc")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(c++ -std=c++20 ${consumer}/consumer.cc -o ${WORK_DIR}/consumer_pc ${flags})
run(${WORK_DIR}/consumer_pc)

# Installs the build tree into a fresh prefix, checks the installed libraries (layers, exports), builds
# samples/ against it with find_package(loom) and runs each sample. Run by ctest as install.find_package.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# The installed libraries keep the layers and export the public API only (hidden symbols,
# LOOM_API_BEGIN/END, the version script).
run(/usr/bin/python3 ${SOURCE_DIR}/tests/install/check_libraries.py ${prefix} ${SOURCE_DIR})
# The installed launcher finds its commands library (lib/loom/) through its run path.
run(${prefix}/bin/loom --version)
run(${prefix}/bin/loom info ${MEDIA_DIR}/images/jpeg/hopper.jpg)
run(${CMAKE_COMMAND} -G Ninja -S ${SOURCE_DIR}/samples -B ${WORK_DIR}/samples -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/samples)

set(bin ${WORK_DIR}/samples)
run(${bin}/sample_read_image ${MEDIA_DIR}/images/jpeg/hopper.jpg ${WORK_DIR}/hopper.png)
if(NOT EXISTS ${WORK_DIR}/hopper.png)
  message(FATAL_ERROR "sample_read_image wrote nothing")
endif()
run(${bin}/sample_resize_image ${MEDIA_DIR}/images/jpeg/flower.jpg ${WORK_DIR}/flower_224.jpg)
run(${bin}/sample_dlpack_exchange)
run(${bin}/sample_media_info ${MEDIA_DIR}/video/nasa_13013.mp4)
run(${bin}/sample_augment_detection ${MEDIA_DIR}/images/jpeg/hopper.jpg ${WORK_DIR}/hopper_augmented.png 3)
if(NOT EXISTS ${WORK_DIR}/hopper_augmented.png)
  message(FATAL_ERROR "sample_augment_detection wrote nothing")
endif()
run(${bin}/sample_rotated_boxes)
run(${bin}/sample_load_audio ${MEDIA_DIR}/audio/nasa_13013.mp4.audio.mp3 ${WORK_DIR}/nasa.flac)
if(NOT EXISTS ${WORK_DIR}/nasa.flac)
  message(FATAL_ERROR "sample_load_audio wrote nothing")
endif()
run(${bin}/sample_decode_frames ${MEDIA_DIR}/video/nasa_13013.mp4 ${WORK_DIR}/nasa_middle.ppm)
if(NOT EXISTS ${WORK_DIR}/nasa_middle.ppm)
  message(FATAL_ERROR "sample_decode_frames wrote nothing")
endif()
# An ImageFolder tree of two classes for the training loop.
file(REMOVE_RECURSE ${WORK_DIR}/folder)
file(COPY ${MEDIA_DIR}/images/jpeg/flower.jpg ${MEDIA_DIR}/images/jpeg/hopper.jpg ${MEDIA_DIR}/images/jpeg/pil_sample_rgb.jpg
     DESTINATION ${WORK_DIR}/folder/a)
file(COPY ${MEDIA_DIR}/images/jpeg/ljt_testimgari.jpg ${MEDIA_DIR}/images/jpeg/hopper_gray.jpg
     ${MEDIA_DIR}/images/png/hopper.png DESTINATION ${WORK_DIR}/folder/b)
run(${bin}/sample_train_loop ${WORK_DIR}/folder 2)
# The same loader feeding libtorch (Debian's libtorch-dev, which setup.sh installs): the loss goes down
# and no batch is copied on the way in (the sample exits 1 otherwise).
if(NOT EXISTS ${bin}/sample_train_libtorch)
  message(FATAL_ERROR "sample_train_libtorch was not built: is libtorch-dev installed (find_package(Torch))?")
endif()
run(${bin}/sample_train_libtorch ${WORK_DIR}/folder 30)
run(${bin}/sample_encode_video ${WORK_DIR}/pattern.mp4)
if(NOT EXISTS ${WORK_DIR}/pattern.mp4 OR NOT EXISTS ${WORK_DIR}/pattern.lossless.mkv)
  message(FATAL_ERROR "sample_encode_video wrote nothing")
endif()
# The installed headers must not pull in third-party headers.
file(GLOB_RECURSE headers ${prefix}/include/loom/*.h)
foreach(h ${headers})
  file(STRINGS ${h} includes REGEX "^#include <")
  foreach(line ${includes})
    if(NOT line MATCHES "^#include <(c[a-z]+|[a-z_]+)>$")
      message(FATAL_ERROR "${h} includes a third-party header: ${line}")
    endif()
  endforeach()
endforeach()

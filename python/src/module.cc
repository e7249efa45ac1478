// loom._loom: the native half of the loom package. Its Python modules (python/loom/) import from here.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "errors.h"
#include "tensor_py.h"

NB_MODULE(_loom, m) {
  namespace python = loom::python;
  m.doc() = "loom's native extension (use the loom package, not this module)";
  python::bind_errors(m);
  python::bind_tensor(m);
  auto io = m.def_submodule("io", "Image and file I/O after torchvision.io");
  python::bind_io(io);
  auto decoders = m.def_submodule("decoders", "Video and audio decoders after torchcodec.decoders");
  python::bind_decoders(decoders);
  auto samplers = m.def_submodule("samplers", "Clip samplers after torchcodec.samplers");
  python::bind_samplers(samplers);
  auto encoders = m.def_submodule("encoders", "Video and audio encoders after torchcodec.encoders");
  python::bind_encoders(encoders);
  auto audio = m.def_submodule("audio", "Audio load, save and info after torchaudio");
  python::bind_audio(audio);
  auto transforms = m.def_submodule("transforms", "Transforms after torchvision.transforms.v2");
  python::bind_transforms(transforms);
  auto pack = m.def_submodule("pack", "loom pack's plan and shard writer");
  python::bind_pack(pack);
  auto ray = m.def_submodule("ray", "loom.ray's native step: a batch of encoded images to one tensor");
  python::bind_ray(ray);
  auto cuda = m.def_submodule("cuda", "CUDA devices, copies and loom's device memory");
  python::bind_cuda(cuda);
  auto data = m.def_submodule("data", "Datasets and the prefetching Loader");
  python::bind_data(data);
}

// The parts of the loom._loom extension, one per Python module; module.cc calls them in order.
#pragma once

#include <nanobind/nanobind.h>

namespace loom::python {

void bind_io(nanobind::module_& io);                  // loom.io (after torchvision.io)
void bind_cuda(nanobind::module_& cuda);              // loom.cuda (devices, copies, memory, after torch.cuda)
void bind_data(nanobind::module_& data);              // loom.data (datasets and the Loader)
void bind_decoders(nanobind::module_& decoders);      // loom.decoders (after torchcodec.decoders)
void bind_samplers(nanobind::module_& samplers);      // loom.samplers (after torchcodec.samplers)
void bind_encoders(nanobind::module_& encoders);      // loom.encoders (after torchcodec.encoders)
void bind_audio(nanobind::module_& audio);            // loom.audio (load, save, info after torchaudio)
void bind_pack(nanobind::module_& pack);              // loom.pack (loom pack's plan and shard writer)
void bind_ray(nanobind::module_& ray);                // loom.ray's native step (decode_batch)
void bind_transforms(nanobind::module_& transforms);  // loom.transforms.v2 (after torchvision.transforms.v2)

}  // namespace loom::python

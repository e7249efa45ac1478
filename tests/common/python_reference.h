// Compare loom with the Python tools users trust (torch, torchvision, Pillow, OpenCV) from a C++ test.
//
// run_python_reference writes the input tensors as NumPy .npy files and the parameters as params.json
// into a temporary folder, runs `interpreter tests/reference/<script> <folder>`, and reads back every
// out_<name>.npy the script wrote (tests/reference/refutil.py has the Python side);
// run_python_reference_json reads back out_<name>.json documents instead. A script that
// fails makes the test fail with its stderr. Tensors are CPU tensors of any loom dtype but float16/
// bfloat16; they are written C-contiguous.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "loom/codec/tensor.h"
#include "test_media.h"

namespace loom::test {

inline const char* npy_descr(DType dtype) {
  switch (dtype) {
    case DType::kUInt8: return "|u1";
    case DType::kInt16: return "<i2";
    case DType::kUInt16: return "<u2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    default: throw std::runtime_error("npy: unsupported dtype");
  }
}

inline void write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  const Tensor t = tensor.contiguous();
  std::string shape = "(";
  for (int64_t s : t.shape()) shape += std::to_string(s) + ",";
  shape += ")";
  std::string header =
      std::string("{'descr': '") + npy_descr(t.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');  // magic + length + header + '\n' is 64-aligned
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.put(static_cast<char>(len & 0xff)).put(static_cast<char>(len >> 8));
  out << header;
  out.write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
}

inline Tensor read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[10];
  if (!in.read(magic, 10) || std::string(magic, 6) != "\x93NUMPY")
    throw std::runtime_error("npy: bad file " + path.string());
  const size_t len = static_cast<uint8_t>(magic[8]) | (static_cast<uint8_t>(magic[9]) << 8);
  std::string header(len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(len));
  if (header.find("'fortran_order': False") == std::string::npos) throw std::runtime_error("npy: fortran order");
  const size_t d = header.find("'descr': '") + 10;
  const std::string descr = header.substr(d, header.find('\'', d) - d);
  DType dtype{};
  bool found = false;
  for (DType c :
       {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
    if (descr == npy_descr(c) || (descr == "<u1" && c == DType::kUInt8)) dtype = c, found = true;
  }
  if (descr == "|b1") dtype = DType::kUInt8, found = true;
  if (!found) throw std::runtime_error("npy: unsupported descr " + descr);
  std::vector<int64_t> shape;
  std::istringstream dims(header.substr(header.find('(') + 1, header.find(')') - header.find('(') - 1));
  for (std::string item; std::getline(dims, item, ',');) {
    if (item.find_first_not_of(' ') != std::string::npos) shape.push_back(std::stoll(item));
  }
  Tensor t = Tensor::empty(shape, dtype);
  in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
  if (!in) throw std::runtime_error("npy: truncated " + path.string());
  return t;
}

using TensorMap = std::map<std::string, Tensor>;
using TextMap = std::map<std::string, std::string>;

// The script's out_<name><suffix> files (suffix ".npy" or ".json"), read by `read` while its folder
// still exists; empty (and a test failure) when the script fails.
template <typename Read>
auto run_reference_script(const std::string& script, const TensorMap& inputs, const std::string& params_json,
                          const std::string& interpreter, const std::string& suffix, Read read) {
  std::map<std::string, decltype(read(std::filesystem::path()))> outputs;
  TempDir dir;
  for (const auto& [name, tensor] : inputs) write_npy(dir / (name + ".npy"), tensor);
  std::ofstream(dir / "params.json") << params_json;
  const std::filesystem::path script_path = std::filesystem::path(LOOM_TEST_REFERENCE_DIR) / script;
  const std::string command =
      interpreter + " " + script_path.string() + " " + dir.path().string() + " 2>" + (dir / "stderr.txt").string();
  const int rc = std::system(command.c_str());
  if (rc != 0) {
    std::ifstream err(dir / "stderr.txt");
    ADD_FAILURE() << script << " failed (" << rc << "):\n" << std::string(std::istreambuf_iterator<char>(err), {});
    return outputs;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("out_") && name.ends_with(suffix) && name.size() > 4 + suffix.size()) {
      outputs[name.substr(4, name.size() - 4 - suffix.size())] = read(entry.path());
    }
  }
  return outputs;
}

inline TensorMap run_python_reference(const std::string& script, const TensorMap& inputs,
                                      const std::string& params_json = "{}",
                                      const std::string& interpreter = "/usr/bin/python3") {
  return run_reference_script(script, inputs, params_json, interpreter, ".npy",
                              [](const std::filesystem::path& p) { return read_npy(p); });
}

// The JSON documents a script wrote with refutil.save_json(name, value), as text by name.
inline TextMap run_python_reference_json(const std::string& script, const std::string& params_json = "{}",
                                         const std::string& interpreter = "/usr/bin/python3") {
  return run_reference_script(script, {}, params_json, interpreter, ".json", [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  });
}

}  // namespace loom::test

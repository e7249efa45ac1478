#include "loom/codec/internal/regular_file.h"

#include <sys/stat.h>

#include "loom/codec/error.h"

namespace loom {

void require_regular_file(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  throw Error(ErrorCode::kIo, path.string(), S_ISDIR(st.st_mode) ? "is a folder, not a file" : "is not a regular file");
}

}  // namespace loom

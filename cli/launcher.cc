// loom: batch preprocessing and inspection of media files.
//
// The executable is a launcher that links no media library: `loom --version` answers here, in about a
// millisecond, and everything else loads the commands library (libloom_cli.so, which brings FFmpeg,
// libjpeg, libsox, ... about 180 shared libraries and 30 ms of dynamic linking) with dlopen and hands it
// the command line. The library is found through this executable's run path: beside it in the build tree,
// in <libdir>/loom/ once installed (cli/CMakeLists.txt).
#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "loom/version.h"

namespace {

// Exit status when the commands library cannot be loaded (sysexits.h's EX_SOFTWARE, as an internal error).
constexpr int kInternalError = 70;

// The version line; false, after saying so on stderr, when stdout cannot take it (a full disk, a
// closed pipe), as coreutils' close_stdout.
bool print_version() {
  errno = 0;
  const bool written = std::fputs("loom " LOOM_VERSION_STRING "\n", stdout) >= 0;
  const int err = errno;
  if (std::fclose(stdout) == 0 && written) return true;
  std::fprintf(stderr, "loom: write error: %s\n", std::strerror(err != 0 ? err : errno));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) return print_version() ? 0 : 1;
  void* commands = dlopen(LOOM_CLI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (commands == nullptr) {
    std::fprintf(stderr, "loom: cannot load the commands library: %s\n", dlerror());
    return kInternalError;
  }
  using Main = int (*)(int, char**);
  const auto cli_main = reinterpret_cast<Main>(dlsym(commands, "loom_cli_main"));
  if (cli_main == nullptr) {
    std::fprintf(stderr, "loom: %s has no loom_cli_main: %s\n", LOOM_CLI_LIBRARY, dlerror());
    return kInternalError;
  }
  return cli_main(argc, argv);
}

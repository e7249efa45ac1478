// loom: batch preprocessing and inspection of media files.
//
// The executable is a launcher that links no media library: `loom --version` answers here, in about a
// millisecond, and everything else loads the commands library (libloom_cli.so, which brings FFmpeg,
// libjpeg, libsox, ... about 180 shared libraries and 30 ms of dynamic linking) with dlopen and hands it
// the command line. The library is looked up by path from this executable's own (/proc/self/exe): beside
// it in the build tree, in <libdir>/loom/ once installed (cli/CMakeLists.txt). Not through the run path:
// a sanitizer's dlopen interceptor would make its runtime the caller whose run path counts.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli_main.h"
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

#ifndef LOOM_CLI_LINKED
// The commands library: the first of its places (LOOM_CLI_PLACES, relative to this executable's folder)
// that loads, else by name through the usual search (LD_LIBRARY_PATH, ...). nullptr, after saying why on
// stderr, when none does. (C strings only: no libstdc++ to load.)
void* load_commands() {
  static const char* const kPlaces[] = {LOOM_CLI_PLACES};
  char folder[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", folder, sizeof(folder) - 1);
  char* slash = nullptr;
  if (n > 0) {
    folder[n] = '\0';
    slash = std::strrchr(folder, '/');
  }
  if (slash != nullptr) {
    *slash = '\0';
    for (const char* place : kPlaces) {
      char path[2 * PATH_MAX];
      std::snprintf(path, sizeof(path), "%s/%s", folder, place);
      if (access(path, F_OK) != 0) continue;
      if (void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return lib;
      std::fprintf(stderr, "loom: cannot load %s: %s\n", path, dlerror());
      return nullptr;
    }
  }
  if (void* lib = dlopen(LOOM_CLI_LIBRARY, RTLD_NOW | RTLD_LOCAL)) return lib;
  std::fprintf(stderr, "loom: cannot load the commands library: %s\n", dlerror());
  return nullptr;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) return print_version() ? 0 : 1;
#ifdef LOOM_CLI_LINKED  // LOOM_CLI_LAUNCHER=OFF (cli/CMakeLists.txt)
  return loom_cli_main(argc, argv);
#else
  void* commands = load_commands();
  if (commands == nullptr) return kInternalError;
  using Main = int (*)(int, char**);
  const auto cli_main = reinterpret_cast<Main>(dlsym(commands, "loom_cli_main"));
  if (cli_main == nullptr) {
    std::fprintf(stderr, "loom: %s has no loom_cli_main: %s\n", LOOM_CLI_LIBRARY, dlerror());
    return kInternalError;
  }
  return cli_main(argc, argv);
#endif
}

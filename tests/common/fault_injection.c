/* LD_PRELOAD fault injection for the robustness tests (tests/robustness): provokes real conditions at
 * exact moments, so that tests of races need no luck. Each fault is set by an environment variable:
 *
 *   LOOM_FAULT_TRUNCATE=SUFFIX, LOOM_FAULT_APPEND=SUFFIX
 *       The first file whose path ends in SUFFIX and that is read in bulk (a read() of 64 KiB or more,
 *       not a sniff of its first bytes) or mapped (mmap()) is truncated to half its size, or has 4 KiB
 *       appended, through its path, just before the read or just after the mapping: a file that
 *       another process truncates or is still writing while loom reads it.
 *   LOOM_FAULT_RAISE_AFTER_CREATE=SIGNO
 *       Right after a loom temporary (a path holding ".loom-") is created, by open() with
 *       O_CREAT | O_EXCL or by mkostemp(), the creating thread raises SIGNO: a signal landing between
 *       creating a temporary and any later step.
 *
 * Everything else passes straight to the next definition (libc's, or a sanitizer's interceptor).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_int changed;

/* True when `fd` names a path ending in `suffix`; the path goes to `path` (4096 bytes). */
static int fd_matches(int fd, const char* suffix, char* path) {
  char link[64];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, 4095);
  if (n <= 0) return 0;
  path[n] = '\0';
  const size_t len = strlen(suffix);
  return (size_t)n >= len && strcmp(path + n - len, suffix) == 0;
}

/* Truncates or appends to the file of `fd`, once per process, when it matches a fault. */
static void change_once(int fd) {
  const char* truncate_suffix = getenv("LOOM_FAULT_TRUNCATE");
  const char* append_suffix = getenv("LOOM_FAULT_APPEND");
  const char* suffix = truncate_suffix != NULL ? truncate_suffix : append_suffix;
  char path[4096];
  struct stat st;
  if (suffix == NULL || fd < 0 || atomic_load(&changed) || !fd_matches(fd, suffix, path)) return;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return;
  if (atomic_exchange(&changed, 1)) return;
  if (truncate_suffix != NULL) {
    if (truncate(path, st.st_size / 2) != 0) abort();
    return;
  }
  static const char tail[4096];
  FILE* f = fopen(path, "ab");
  if (f == NULL || fwrite(tail, 1, sizeof(tail), f) != sizeof(tail) || fclose(f) != 0) abort();
}

static void raise_after_create(const char* path) {
  const char* signo = getenv("LOOM_FAULT_RAISE_AFTER_CREATE");
  if (signo != NULL && strstr(path, ".loom-") != NULL) raise(atoi(signo));
}

ssize_t read(int fd, void* buf, size_t count) {
  static ssize_t (*next)(int, void*, size_t);
  if (next == NULL) next = (ssize_t(*)(int, void*, size_t))dlsym(RTLD_NEXT, "read");
  if (count >= 65536) change_once(fd);
  return next(fd, buf, count);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  static void* (*next)(void*, size_t, int, int, int, off_t);
  if (next == NULL) next = (void* (*)(void*, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
  void* p = next(addr, length, prot, flags, fd, offset);
  if (p != MAP_FAILED && !(flags & MAP_ANONYMOUS)) change_once(fd);
  return p;
}

static int open_and_raise(const char* name, const char* path, int flags, va_list args) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) mode = va_arg(args, mode_t);
  int (*next)(const char*, int, ...) = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, name);
  const int fd = next(path, flags, mode);
  if (fd >= 0 && (flags & O_CREAT) && (flags & O_EXCL)) raise_after_create(path);
  return fd;
}

int open(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const int fd = open_and_raise("open", path, flags, args);
  va_end(args);
  return fd;
}

int open64(const char* path, int flags, ...) {
  va_list args;
  va_start(args, flags);
  const int fd = open_and_raise("open64", path, flags, args);
  va_end(args);
  return fd;
}

int mkostemp(char* template_, int flags) {
  static int (*next)(char*, int);
  if (next == NULL) next = (int (*)(char*, int))dlsym(RTLD_NEXT, "mkostemp");
  const int fd = next(template_, flags);
  if (fd >= 0) raise_after_create(template_);
  return fd;
}

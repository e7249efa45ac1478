#include "fork_guard.h"

#include <oneapi/tbb/global_control.h>
#include <pthread.h>

#include <map>
#include <mutex>
#include <new>
#include <utility>

namespace loom::loader::detail {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<const void*, std::function<void()>> pause;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: handlers may run during exit
  return *r;
}

void before_fork() {
  Registry& r = registry();
  r.mutex.lock();  // held across fork(): no loader is made or destroyed meanwhile
  for (auto& [owner, pause] : r.pause) pause();
  // With every arena terminated and no pipeline running, shut oneTBB's workers down, waiting for them
  // to exit. It declines (returns false) while another thread still holds the scheduler (a
  // parallel_for running elsewhere); the fork then proceeds as it would without loom.
  tbb::task_scheduler_handle handle{tbb::attach{}};
  (void)tbb::finalize(handle, std::nothrow);
}

void after_fork() {
  registry().mutex.unlock();
}

void install_handlers() {
  static const int installed = pthread_atfork(before_fork, after_fork, after_fork);
  (void)installed;
}

}  // namespace

void register_for_fork(const void* owner, std::function<void()> pause) {
  install_handlers();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.pause.emplace(owner, std::move(pause));
}

void unregister_for_fork(const void* owner) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.pause.erase(owner);
}

}  // namespace loom::loader::detail

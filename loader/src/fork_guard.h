// Fork safety for the loader's threads (pthread_atfork).
//
// fork() copies only the calling thread. A oneTBB worker or a pipeline thread caught mid-task leaves
// its locks and the scheduler's state half-changed in the child, where nothing will ever finish them
// (a forked child that used oneTBB then crashed or hung in about 1 in 10 forks). So before fork()
// every live loader pauses: its pipeline stops (the batches built ahead are dropped and rebuilt later,
// identically), its arena is terminated, and oneTBB's workers are shut down (tbb::finalize, blocking).
// (A finished worker may still be exiting when fork() runs: seen under TSan, which counts it; it holds
// no oneTBB state by then.) The parent and the child both start afresh on demand: a loader resumes at
// the batch it was due to deliver, and arenas and workers are made again when next used.
//
// A loader may be paused only while its consumer is not inside next() (the Loader's own contract:
// one consumer thread; fork() from another thread while it waits for a batch is not supported).
// Thread safety: the registry is guarded by its own mutex; the handlers run in the forking thread.
#pragma once

#include <functional>

namespace loom::loader::detail {

// Calls `pause` of every registered loader before each fork(), with the registry locked.
// Registering installs the pthread_atfork handlers once per process.
void register_for_fork(const void* owner, std::function<void()> pause);
void unregister_for_fork(const void* owner);

}  // namespace loom::loader::detail

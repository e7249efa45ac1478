// Registry of temporary files being written (private to loom::codec), so that a signal handler can
// remove them: see loom::remove_pending_files().
//
// A temporary is registered before it exists and marked created once open() returned, so that a
// signal landing at any moment finds it:
//   int slot = add(path);               // kCreating: the file may exist from here on
//   if (slot == kClosed) ...            // the process is ending: create nothing
//   fd = open(path, O_CREAT | O_EXCL)
//   if (!created(slot)) ...             // the process began to end meanwhile: unlink, give up
//   ... rename or unlink, then release(slot)
#pragma once

namespace loom::pending_files {

// add() when remove_pending_files() has run: the process is ending and no temporary may be created.
constexpr int kClosed = -2;

// Records `path` (a NUL-terminated temporary file path) as being created; returns its slot, kClosed,
// or -1 when the registry is full or the path too long (the file is then simply not cleaned up by a
// signal). Thread-safe, lock-free.
int add(const char* path);
// The file of `slot` now exists. False when remove_pending_files() began meanwhile: the caller then
// removes the file itself and releases the slot. True for slot -1. Thread-safe, lock-free.
bool created(int slot);
// Forgets the slot once the file has been renamed into place or removed (-1 and kClosed: no-op).
void release(int slot);

}  // namespace loom::pending_files

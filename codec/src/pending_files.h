// Registry of temporary files being written (private to loom::codec), so that a signal handler can
// remove them: see loom::remove_pending_files().
#pragma once

namespace loom::pending_files {

// Records `path` (a NUL-terminated temporary file path); returns a slot to release, or -1 when the
// registry is full (the file is then simply not cleaned up by a signal). Thread-safe.
int add(const char* path);
// Forgets the slot once the file has been renamed into place or removed. Thread-safe.
void release(int slot);

}  // namespace loom::pending_files

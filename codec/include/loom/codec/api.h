// What loom's shared libraries export. They are built with hidden symbols (-fvisibility=hidden); a
// public header declares its API between LOOM_API_BEGIN and LOOM_API_END, after its #includes, and
// only those declarations are exported. Private code (src/, codec/internal/) stays inside the library.
#pragma once

#define LOOM_API_BEGIN _Pragma("GCC visibility push(default)")
#define LOOM_API_END _Pragma("GCC visibility pop")

// A public class's private part (the pimpl a public header only declares, such as `struct Impl;`) is
// defined in a source file as `struct LOOM_HIDDEN Class::Impl { ... };`: members of a nested class
// otherwise take the exported visibility of the class around them.
#define LOOM_HIDDEN __attribute__((visibility("hidden")))

#include <algorithm>

#include "loom/loader/dataset.h"

namespace loom::loader {

const Member* Record::find(std::span<const std::string> names) const {
  for (const std::string& name : names) {
    if (const Member* member = find(std::string_view(name))) return member;
  }
  return nullptr;
}

const Member* Record::find(std::string_view name) const {
  const auto it = std::find_if(members.begin(), members.end(), [&](const Member& m) { return m.name == name; });
  return it == members.end() ? nullptr : &*it;
}

}  // namespace loom::loader

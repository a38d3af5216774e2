// Appending to a list that keeps the order things were first seen in, without repeats: the
// columns and groups of the result tables.
#pragma once

#include <algorithm>
#include <vector>

namespace ironbench::report {

/// Appends `value` to `list` unless it is there already.
template <class T>
void add_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace ironbench::report

// The one-line usage error an importer gives, for the importers' bad-value tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace ironbench::results {

/// What `parse()` throws as usage_error ("" when it throws nothing), checked to be one line
/// of under 300 characters.
template <class Parse>
std::string usage_error_of(Parse&& parse) {
  try {
    parse();
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_LT(message.size(), 300u) << message.substr(0, 300);
    return message;
  }
  return "";
}

}  // namespace ironbench::results

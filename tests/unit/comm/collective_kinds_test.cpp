// The collectives' table (schema/collective_kinds.hpp): one row per enumerator in its order,
// and every point-to-point row's transfers consistent with its shape: each rank sends its
// whole input once and its output is filled exactly once.
#include "schema/collective_kinds.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ironbench::schema {
namespace {

TEST(CollectiveKinds, OneRowPerCollectiveInTheEnumeratorsOrder) {
  const auto& rows = collective_kinds();
  ASSERT_EQ(rows.size(), all_collectives().size());
  std::set<std::string> names;
  std::string joined;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(rows[i].id), i) << rows[i].name;
    EXPECT_EQ(&kind_of(rows[i].id), &rows[i]);
    EXPECT_EQ(all_collectives()[i], rows[i].id);
    EXPECT_STREQ(to_string(rows[i].id), rows[i].name);
    EXPECT_TRUE(names.insert(rows[i].name).second) << rows[i].name;
    joined += (joined.empty() ? "" : ", ") + std::string(rows[i].name);
    // A library collective says what it outputs; a point-to-point one what each rank sends.
    EXPECT_NE(rows[i].expected == nullptr, rows[i].transfer == nullptr) << rows[i].name;
    EXPECT_TRUE(rows[i].shape != nullptr && rows[i].bus_factor != nullptr && rows[i].input != nullptr);
    EXPECT_EQ(rows[i].period > 0, rows[i].reduces) << rows[i].name;
    EXPECT_TRUE(!rows[i].output_at_root_only || rows[i].has_root) << rows[i].name;
  }
  EXPECT_EQ(collective_names_text(), joined);
  EXPECT_EQ(collective_names_text().rfind("all_reduce, all_gather, reduce_scatter, ", 0), 0u);
}

TEST(CollectiveKinds, AValueOutsideTheEnumeratorsHasNoRow) {
  EXPECT_THROW((void)kind_of(static_cast<collective>(collective_kinds().size())), std::logic_error);
}

// Marks `count` elements from `offset` in `seen`; false when one is outside or already marked.
bool mark(std::vector<int>& seen, std::size_t offset, std::size_t count) {
  if (offset + count > seen.size()) return false;
  for (std::size_t i = offset; i < offset + count; ++i) {
    if (seen[i]++ != 0) return false;
  }
  return true;
}

TEST(CollectiveKinds, PointToPointTransfersSendEachInputElementOnceAndFillEachOutputElementOnce) {
  int checked = 0;
  for (const auto& kind : collective_kinds()) {
    if (kind.transfer == nullptr) continue;
    for (int n = 1; n <= 9; ++n) {
      for (const std::size_t elements : {1, 7, 100, 4099}) {
        const auto shape = kind.shape(elements, 4, n);
        if (shape.send_count == 0) continue;
        for (int rank = 0; rank < n; ++rank) {
          std::vector<int> sent(shape.send_count, 0), received(shape.recv_count, 0);
          for (int peer = 0; peer < n; ++peer) {
            const auto to = kind.transfer(shape, rank, peer, n);
            const auto from = kind.transfer(shape, peer, rank, n);
            ASSERT_TRUE(mark(sent, to.send_offset, to.count)) << kind.name << " n=" << n << " " << rank << "->" << peer;
            ASSERT_TRUE(mark(received, from.recv_offset, from.count))
                << kind.name << " n=" << n << " " << peer << "->" << rank;
          }
          for (const int s : sent) ASSERT_EQ(s, 1) << kind.name << " n=" << n << " rank " << rank;
          for (const int r : received) ASSERT_EQ(r, 1) << kind.name << " n=" << n << " rank " << rank;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace ironbench::schema

// The collectives' table (schema/collective_kinds.hpp): one row per enumerator in its order,
// and every point-to-point row's transfers consistent with its shape: each rank sends its
// whole input once and its output is filled exactly once.
#include "schema/collective_kinds.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

bool same(const peer_transfer& t, std::size_t send_offset, std::size_t recv_offset, std::size_t count) {
  return t.send_offset == send_offset && t.recv_offset == recv_offset && t.count == count;
}

TEST(CollectiveKinds, AlltoallvSizesAsAlltoallAndSendsUnevenSymmetricBlocks) {
  const auto& kind = kind_of(collective::alltoallv);
  // Sized as nccl-tests' alltoall (rccl-tests' alltoallv): each rank's buffer, a multiple of
  // n elements; S = that buffer; bus factor (n-1)/n.
  const auto shape = kind.shape(29, 4, 3);
  EXPECT_EQ(shape.count, 27u);
  EXPECT_EQ(shape.send_count, 27u);
  EXPECT_EQ(shape.recv_count, 27u);
  EXPECT_EQ(shape.param_count, 9u);
  EXPECT_EQ(shape.algorithm_bytes, 27.0 * 4);
  EXPECT_DOUBLE_EQ(kind.bus_factor(3), 2.0 / 3);
  EXPECT_DOUBLE_EQ(kind.bus_factor(8), 7.0 / 8);
  // n = 3, C = 27: u = 27 / 6 = 4, remainder 3; k = (s + d) mod 3 gets 4(k + 1), k = 0 also 3:
  // rank 0 sends 7, 8, 12 to ranks 0, 1, 2; rank 1 sends 8, 12, 7; rank 2 sends 12, 7, 8.
  const std::size_t counts[3][3] = {{7, 8, 12}, {8, 12, 7}, {12, 7, 8}};
  for (int s = 0; s < 3; ++s) {
    for (int d = 0; d < 3; ++d) EXPECT_EQ(kind.transfer(shape, s, d, 3).count, counts[s][d]) << s << "->" << d;
  }
  EXPECT_TRUE(same(kind.transfer(shape, 0, 0, 3), 0, 0, 7));
  EXPECT_TRUE(same(kind.transfer(shape, 0, 2, 3), 15, 0, 12));
  EXPECT_TRUE(same(kind.transfer(shape, 1, 2, 3), 20, 12, 7));
  EXPECT_TRUE(same(kind.transfer(shape, 2, 1, 3), 12, 20, 7));
  EXPECT_TRUE(same(kind.transfer(shape, 2, 2, 3), 19, 19, 8));
  // Rank 1 receives rank 0's elements 7..14, rank 1's 8..19, rank 2's 12..18, in that order.
  collective_call call;
  call.shape = shape;
  call.rank = 1;
  call.ranks = 3;
  const auto expected = expected_values_of(collective::alltoallv, call);
  const auto input = [&](int rank, std::size_t index) { return kind.input(call.op, rank, index); };
  EXPECT_EQ(expected(0), input(0, 7));
  EXPECT_EQ(expected(7), input(0, 14));
  EXPECT_EQ(expected(8), input(1, 8));
  EXPECT_EQ(expected(19), input(1, 19));
  EXPECT_EQ(expected(20), input(2, 12));
  EXPECT_EQ(expected(26), input(2, 18));
  EXPECT_TRUE(std::isnan(expected(27)));  // beyond the output: no peer sends it
}

TEST(CollectiveKinds, AlltoallvIsUnevenForEveryRankCountAboveOne) {
  for (int n = 2; n <= 16; ++n) {
    const auto shape = kind_of(collective::alltoallv).shape(std::size_t{1} << 16, 4, n);
    for (int s = 0; s < n; ++s) {
      std::set<std::size_t> counts;
      for (int d = 0; d < n; ++d) {
        counts.insert(alltoallv_transfer(shape, s, d, n).count);
        EXPECT_EQ(alltoallv_transfer(shape, s, d, n).count, alltoallv_transfer(shape, d, s, n).count);
      }
      EXPECT_EQ(counts.size(), static_cast<std::size_t>(n)) << "n=" << n << " rank " << s;
    }
  }
}

}  // namespace
}  // namespace ironbench::schema

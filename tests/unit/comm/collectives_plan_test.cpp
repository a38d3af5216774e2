#include <gtest/gtest.h>

#include "comm/collectives_run.hpp"
#include "core/error.hpp"

namespace ironbench::comm {
namespace {

TEST(CollectivesPlan, ReducingCollectivesOncePerOpOthersOncePerType) {
  sweep_settings base;
  base.max_bytes = 1024;
  const auto sweeps = plan({collective::all_reduce, collective::all_gather, collective::reduce},
                           {element_type::fp32, element_type::int8}, {reduce_op::sum, reduce_op::max}, base);
  // Per type: all_reduce+reduce with sum, with max, then all_gather.
  ASSERT_EQ(sweeps.size(), 6u);
  const std::vector<collective> reducing = {collective::all_reduce, collective::reduce};
  const std::vector<collective> moving = {collective::all_gather};
  EXPECT_EQ(sweeps[0].collectives, reducing);
  EXPECT_EQ(sweeps[0].type, element_type::fp32);
  EXPECT_EQ(sweeps[0].op, reduce_op::sum);
  EXPECT_EQ(sweeps[1].collectives, reducing);
  EXPECT_EQ(sweeps[1].op, reduce_op::max);
  EXPECT_EQ(sweeps[2].collectives, moving);
  EXPECT_EQ(sweeps[2].type, element_type::fp32);
  EXPECT_EQ(sweeps[3].type, element_type::int8);
  EXPECT_EQ(sweeps[5].collectives, moving);
  EXPECT_EQ(sweeps[5].type, element_type::int8);
  for (const auto& s : sweeps) EXPECT_EQ(s.max_bytes, 1024u);
}

TEST(CollectivesPlan, OnlyMovingCollectivesIgnoreTheOperators) {
  const auto sweeps = plan({collective::broadcast}, {element_type::fp16}, {reduce_op::sum, reduce_op::prod}, {});
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0].collectives, std::vector<collective>{collective::broadcast});
}

TEST(CollectivesPlan, NameListsAndFaults) {
  EXPECT_EQ(parse_collectives("all").size(), all_collectives().size());
  EXPECT_EQ(parse_element_types("float,half"), (std::vector<element_type>{element_type::fp32, element_type::fp16}));
  try {
    (void)parse_reduce_ops("sum,xor");
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "unknown reduction op 'xor'");
  }
  EXPECT_THROW((void)parse_collectives("all_reduce,"), usage_error);
  const auto fault = parse_fault("hang@1");
  EXPECT_EQ(fault.kind, "hang");
  EXPECT_EQ(fault.rank, 1);
  EXPECT_TRUE(parse_fault("").kind.empty());
  EXPECT_THROW((void)parse_fault("stop@1"), usage_error);
}

}  // namespace
}  // namespace ironbench::comm

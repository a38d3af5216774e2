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
}

TEST(InjectedFault, EveryFormParsesAndPrintsBack) {
  const auto hang = parse_fault("hang@1");
  EXPECT_EQ(hang.kind, fault_kind::hang);
  EXPECT_EQ(hang.rank, 1);
  EXPECT_EQ(parse_fault("").kind, fault_kind::none);
  EXPECT_EQ(parse_fault("exit@0").kind, fault_kind::exit);
  const auto slow = parse_fault("slow@3");
  EXPECT_EQ(slow.kind, fault_kind::slow);
  EXPECT_EQ(slow.rank, 3);
  EXPECT_DOUBLE_EQ(slow.delay_ms, default_fault_delay_ms);
  EXPECT_DOUBLE_EQ(parse_fault("slow@3:2.5").delay_ms, 2.5);
  const auto link = parse_fault("slow-link@5-2:40");
  EXPECT_EQ(link.kind, fault_kind::slow_link);
  EXPECT_EQ(link.rank, 2);
  EXPECT_EQ(link.peer, 5);
  EXPECT_DOUBLE_EQ(link.delay_ms, 40);
  for (const char* text : {"hang@1", "exit@7", "slow@3", "slow@3:2.5", "slow-link@2-5:40", "slow-link@0-1"}) {
    EXPECT_EQ(to_string(parse_fault(text)), text);
  }
  EXPECT_TRUE(delays_exchange(slow, 3, 0));
  EXPECT_TRUE(delays_exchange(slow, 1, 3));
  EXPECT_FALSE(delays_exchange(slow, 1, 2));
  EXPECT_TRUE(delays_exchange(link, 5, 2));
  EXPECT_FALSE(delays_exchange(link, 5, 1));
  EXPECT_FALSE(delays_exchange(hang, 1, 0));
}

TEST(InjectedFault, MalformedFormsAreUsageErrors) {
  for (const char* text : {"stop@1", "hang", "hang@", "hang@-1", "hang@x", "slow@1:0", "slow@1:-3", "slow@1:nan",
                           "slow@1:", "slow-link@1", "slow-link@1-1", "slow-link@1-", "slow-link@-2", "@1"}) {
    EXPECT_THROW((void)parse_fault(text), usage_error) << text;
  }
  try {
    (void)parse_fault("stop@1");
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("slow-link@RANK-RANK[:MS]"), std::string::npos) << e.what();
  }
}

TEST(InjectedFault, ARankOutsideTheJobIsAUsageError) {
  EXPECT_NO_THROW(check_fault_rank(parse_fault(""), 1));
  EXPECT_NO_THROW(check_fault_rank(parse_fault("hang@3"), 4));
  EXPECT_NO_THROW(check_fault_rank(parse_fault("slow-link@0-3"), 4));
  EXPECT_THROW(check_fault_rank(parse_fault("hang@4"), 4), usage_error);
  EXPECT_THROW(check_fault_rank(parse_fault("slow-link@1-4"), 4), usage_error);
  try {
    check_fault_rank(parse_fault("exit@9"), 4);
    ADD_FAILURE() << "exit@9 in a job of 4 ranks was accepted";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "--inject-fault exit@9: the job has 4 ranks (0 to 3)");
  }
}

}  // namespace
}  // namespace ironbench::comm

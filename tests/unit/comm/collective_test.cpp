#include "comm/collective.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "comm/collective_sweep.hpp"
#include "comm/host_comm_buffer.hpp"
#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#if IRONBENCH_TEST_MPI
#include "comm/mpi/mpi_communicator.hpp"
#endif

namespace ironbench::comm {
namespace {

TEST(Collective, NamesRoundTripAndNcclTestsAliasesParse) {
  for (auto c : all_collectives()) EXPECT_EQ(collective_from_string(to_string(c)), c);
  for (auto t : all_element_types()) EXPECT_EQ(element_type_from_string(to_string(t)), t);
  for (auto op : all_reduce_ops()) EXPECT_EQ(reduce_op_from_string(to_string(op)), op);
  EXPECT_EQ(element_type_from_string("float"), element_type::fp32);
  EXPECT_EQ(element_type_from_string("half"), element_type::fp16);
  EXPECT_EQ(element_type_from_string("bfloat16"), element_type::bf16);
  EXPECT_EQ(element_type_from_string("double"), element_type::fp64);
  EXPECT_EQ(element_type_from_string("int"), element_type::int32);
  EXPECT_FALSE(element_type_from_string("int4"));
  EXPECT_FALSE(collective_from_string("allreduce"));
}

TEST(Collective, BusFactorsAreNcclTestsForEveryRankCount) {
  for (int n : {1, 2, 3, 4, 8, 16, 64}) {
    const double d = n;
    EXPECT_DOUBLE_EQ(bus_factor(collective::all_reduce, n), 2 * (d - 1) / d);
    EXPECT_DOUBLE_EQ(bus_factor(collective::all_gather, n), (d - 1) / d);
    EXPECT_DOUBLE_EQ(bus_factor(collective::reduce_scatter, n), (d - 1) / d);
    EXPECT_DOUBLE_EQ(bus_factor(collective::alltoall, n), (d - 1) / d);
    EXPECT_DOUBLE_EQ(bus_factor(collective::broadcast, n), 1);
    EXPECT_DOUBLE_EQ(bus_factor(collective::reduce, n), 1);
    EXPECT_DOUBLE_EQ(bus_factor(collective::sendrecv, n), 1);
  }
}

TEST(Collective, ByteCountsPerCollective) {
  // all_reduce of 1 MiB fp32 over 8 ranks: every rank sends and receives 262144 floats.
  auto s = shape_of(collective::all_reduce, 1 << 20, element_type::fp32, 8);
  EXPECT_EQ(s.count, 262144u);
  EXPECT_EQ(s.send_count, 262144u);
  EXPECT_EQ(s.recv_count, 262144u);
  EXPECT_DOUBLE_EQ(s.algorithm_bytes, 1 << 20);
  EXPECT_DOUBLE_EQ(s.bus_factor, 1.75);
  // all_gather: the size is the gathered output; each rank sends 1/n of it.
  s = shape_of(collective::all_gather, 1 << 20, element_type::fp16, 8);
  EXPECT_EQ(s.send_count, 65536u);
  EXPECT_EQ(s.recv_count, 524288u);
  EXPECT_DOUBLE_EQ(s.algorithm_bytes, 65536.0 * 8 * 2);
  // reduce_scatter: the size is each rank's input; each receives 1/n of it.
  s = shape_of(collective::reduce_scatter, 1 << 20, element_type::fp32, 4);
  EXPECT_EQ(s.send_count, 262144u);
  EXPECT_EQ(s.recv_count, 65536u);
  EXPECT_DOUBLE_EQ(s.algorithm_bytes, 65536.0 * 4 * 4);
  // alltoall: count_per_peer x n.
  s = shape_of(collective::alltoall, 1000, element_type::fp64, 3);
  EXPECT_EQ(s.count, 123u);  // 125 elements rounded down to a multiple of 3
  EXPECT_DOUBLE_EQ(s.algorithm_bytes, 41.0 * 3 * 8);
  // sizes too small for one element per rank give zero counts (the sweep skips them)
  EXPECT_EQ(shape_of(collective::all_gather, 8, element_type::fp64, 2).send_count, 0u);
  s = shape_of(collective::sendrecv, 4096, element_type::int8, 2);
  EXPECT_EQ(s.send_count, 4096u);
  EXPECT_DOUBLE_EQ(s.bus_factor, 1);
}

TEST(Collective, CountColumnIsTheCountPassedToTheLibraryAsInNcclTests) {
  // nccl-tests, 8 ranks, 65536 B of float: all_gather prints count 2048, all_reduce 16384.
  EXPECT_EQ(shape_of(collective::all_gather, 65536, element_type::fp32, 8).param_count, 2048u);
  EXPECT_EQ(shape_of(collective::reduce_scatter, 65536, element_type::fp32, 8).param_count, 2048u);
  EXPECT_EQ(shape_of(collective::alltoall, 65536, element_type::fp32, 8).param_count, 2048u);
  EXPECT_EQ(shape_of(collective::all_reduce, 65536, element_type::fp32, 8).param_count, 16384u);
  EXPECT_EQ(shape_of(collective::sendrecv, 65536, element_type::fp32, 8).param_count, 16384u);
  EXPECT_EQ(shape_of(collective::broadcast, 65536, element_type::fp32, 8).param_count, 16384u);
}

TEST(CollectiveSweep, SizesByFactorOrIncrement) {
  EXPECT_EQ(sweep_sizes(8, 128, 2, 0), (std::vector<std::size_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(sweep_sizes(8, 100, 2, 0), (std::vector<std::size_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes(100, 400, 2, 100), (std::vector<std::size_t>{100, 200, 300, 400}));
  EXPECT_EQ(sweep_sizes(4, 4, 2, 0), (std::vector<std::size_t>{4}));
  EXPECT_EQ(sweep_sizes(4, 16ull << 30, 2, 0).size(), 33u);             // -b 4 -e 16G -f 2
  EXPECT_EQ(sweep_sizes(8, 8, 1.0, 0), (std::vector<std::size_t>{8}));  // a factor of 1 stops
}

TEST(CollectiveSweep, SummaryIsNcclTestsAverageAndOursAboveOneMebibyte) {
  std::vector<sweep_row> rows;
  for (std::size_t bytes : {std::size_t{1024}, std::size_t{1} << 20, std::size_t{4} << 20}) {
    sweep_row r{collective::all_reduce, element_type::fp32, reduce_op::sum, -1, bytes, {}, {}, {}};
    r.out_of_place = {true, "", 1, 1, bytes == 1024 ? 1.0 : 10.0, 0, {}};
    r.in_place = {true, "", 1, 1, bytes == 1024 ? 3.0 : 20.0, 0, {}};
    rows.push_back(r);
  }
  rows[2].in_place.wrong = 5;
  const auto s = summarize(rows);
  EXPECT_DOUBLE_EQ(s.average_gbs, (1 + 3 + 10 + 20 + 10 + 20) / 6.0);
  EXPECT_DOUBLE_EQ(s.average_from_1mib_gbs, 15.0);
  EXPECT_DOUBLE_EQ(s.peak_gbs, 20.0);
  EXPECT_EQ(s.peak_bytes, std::size_t{1} << 20);
  EXPECT_DOUBLE_EQ(s.wrong, 5);
}

// The launch read from `env` instead of the process environment.
launch_info from(const std::map<std::string, std::string>& env) {
  return detect_launch([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(LaunchEnvironment, EachLauncherIsRecognised) {
  auto l = from({{"OMPI_COMM_WORLD_RANK", "5"},
                 {"OMPI_COMM_WORLD_SIZE", "16"},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", "5"},
                 {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"}});
  EXPECT_EQ(l.launcher, "open_mpi");
  EXPECT_EQ(l.rank, 5);
  EXPECT_EQ(l.size, 16);
  EXPECT_EQ(l.local_size, 8);
  l = from({{"SLURM_PROCID", "9"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS_PER_NODE", "8"}});
  EXPECT_EQ(l.launcher, "slurm");
  EXPECT_EQ(l.local_rank, 1);
  EXPECT_EQ(gpu_for(l, 8), 1);
  l = from({{"PMIX_RANK", "3"}, {"PMIX_SIZE", "4"}, {"PMIX_LOCAL_RANK", "3"}});
  EXPECT_EQ(l.launcher, "pmix");
  l = from({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "2"}});
  EXPECT_EQ(l.launcher, "mpich");
  EXPECT_EQ(gpu_for(l, 1), 0);
  // Malformed or inconsistent numbers fall through to the next launcher, then to none.
  l = from(
      {{"OMPI_COMM_WORLD_RANK", "x"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}});
  EXPECT_EQ(l.launcher, "slurm");
  l = from({{"PMI_RANK", "4"}, {"PMI_SIZE", "4"}});
  EXPECT_EQ(l.launcher, "none");
  EXPECT_EQ(l.size, 1);
  EXPECT_FALSE(l.local_rank_known);
}

TEST(LaunchEnvironment, MvapichAndCrayPmiGiveLocalRanksAndAMissingOneIsKnownToBeMissing) {
  auto l = from({{"MV2_COMM_WORLD_RANK", "6"},
                 {"MV2_COMM_WORLD_SIZE", "8"},
                 {"MV2_COMM_WORLD_LOCAL_RANK", "2"},
                 {"MV2_COMM_WORLD_LOCAL_SIZE", "4"}});
  EXPECT_EQ(l.launcher, "mvapich");
  EXPECT_EQ(l.local_rank, 2);
  EXPECT_EQ(l.local_size, 4);
  EXPECT_TRUE(l.local_rank_known);
  l = from({{"PMI_RANK", "5"}, {"PMI_SIZE", "16"}, {"PMI_LOCAL_RANK", "5"}, {"PMI_LOCAL_SIZE", "8"}});
  EXPECT_EQ(l.launcher, "mpich");
  EXPECT_EQ(gpu_for(l, 8), 5);
  EXPECT_EQ(l.local_size, 8);
  l = from({{"PMI_RANK", "5"}, {"PMI_SIZE", "16"}});
  EXPECT_EQ(l.launcher, "mpich");
  EXPECT_FALSE(l.local_rank_known);
  l = from({{"PMI_RANK", "0"}, {"PMI_SIZE", "1"}});
  EXPECT_TRUE(l.local_rank_known);  // a job of one process has no one to share the node with
}

// A job of ranks on named hosts, as seen from one rank, for the host-name fallback.
class hosts_bootstrap final : public bootstrap {
 public:
  hosts_bootstrap(std::vector<std::string> hosts, int rank) : hosts_(std::move(hosts)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(hosts_.size()); }
  std::string description() const override { return "hosts"; }
  void barrier() override {}
  double sum(double v) override { return v; }
  double max(double v) override { return v; }
  double min(double v) override { return v; }
  std::vector<std::string> gather(const std::string&) override { return {}; }
  void broadcast_bytes(void*, std::size_t) override {}
  void all_gather_bytes(const void* send, void* receive, std::size_t bytes) override {
    auto* out = static_cast<char*>(receive);
    for (std::size_t r = 0; r < hosts_.size(); ++r) {
      std::string name = hosts_[r];
      name.resize(bytes, '\0');
      std::memcpy(out + r * bytes, static_cast<int>(r) == rank_ ? send : name.data(), bytes);
    }
  }

 private:
  std::vector<std::string> hosts_;
  int rank_;
};

// Host memory that remembers where each call's receive buffer started.
class recording_backend final : public collective_backend {
 public:
  explicit recording_backend(bool rotates) : rotates_(rotates) {}
  std::string description() const override { return "recording"; }
  std::unique_ptr<comm_buffer> allocate(std::size_t bytes) override {
    auto buffer = std::make_unique<host_comm_buffer>(bytes);
    bases_.push_back(static_cast<unsigned char*>(buffer->data()));
    allocated_.push_back(bytes);
    return buffer;
  }
  std::string unsupported(collective, element_type, reduce_op, bool) const override { return {}; }
  std::string graph_unsupported() const override { return {}; }
  void begin_graph() override { recording_ = true; }
  void end_graph() override { recording_ = false; }
  void replay_graph() override { replayed_ += recorded_; }
  std::size_t run(collective, comm_buffer* send, comm_buffer& recv, const call_shape&, element_type, reduce_op,
                  int) override {
    if (recording_) {
      ++recorded_;
      return 0;
    }
    if (send != nullptr) std::memcpy(recv.data(), send->data(), std::min(send->bytes(), recv.bytes()));
    // The offset into the newest allocation that holds the receive buffer.
    const auto* at = static_cast<unsigned char*>(recv.data());
    for (std::size_t i = bases_.size(); i-- > 0;) {
      if (at >= bases_[i] && at < bases_[i] + allocated_[i]) {
        offsets_.push_back(static_cast<std::size_t>(at - bases_[i]));
        break;
      }
    }
    return 0;
  }
  void synchronize() override {}
  bool rotates_buffers() const override { return rotates_; }

  std::vector<std::size_t> offsets_;    ///< receive offsets, one per call run directly
  std::vector<std::size_t> allocated_;  ///< bytes of every allocation
  bool recording_ = false;
  int recorded_ = 0;  ///< calls recorded into graphs
  int replayed_ = 0;  ///< calls run by graph replays

 private:
  bool rotates_;
  std::vector<unsigned char*> bases_;
};

// An out-of-place sweep from `min` to `max` bytes, one warm-up and five timed iterations.
sweep_settings out_of_place_sweep(std::size_t min, std::size_t max, double factor) {
  sweep_settings s;
  s.min_bytes = min;
  s.max_bytes = max;
  s.factor = factor;
  s.warmup_iterations = 1;
  s.iterations = 5;
  s.in_place = false;
  return s;
}

TEST(CollectiveSweep, RotatingBackendsTimeEachIterationOnTheNextSliceAsNcclTests) {
  EXPECT_EQ(rotation_of(shape_of(collective::all_reduce, 1024, element_type::fp32, 1), 4, 4096, true).slices, 4u);
  EXPECT_EQ(rotation_of(shape_of(collective::all_reduce, 1024, element_type::fp32, 1), 4, 4096, false).slices, 1u);
  EXPECT_EQ(rotation_of(shape_of(collective::all_reduce, 3000, element_type::fp32, 1), 4, 4096, true).slices, 1u);
  const auto gather = rotation_of(shape_of(collective::all_gather, 1024, element_type::fp32, 4), 4, 8192, true);
  EXPECT_EQ(gather.stride_bytes, 1024u);  // the gathered output, the larger buffer
  EXPECT_EQ(gather.slices, 8u);

  hosts_bootstrap world({"node"}, 0);
  const auto s = out_of_place_sweep(1024, 4096, 2);
  recording_backend rotating(true);
  const auto rows = run_sweep(world, rotating, s);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].out_of_place.wrong, 0);
  // 1024 B: the check at slice 0, the warm-up iteration at slice 0, then the timed
  // iterations from slice 0 again (nccl-tests counts both loops from 0): 0,1,2,3,0.
  const std::vector<std::size_t> first(rotating.offsets_.begin(), rotating.offsets_.begin() + 7);
  EXPECT_EQ(first, (std::vector<std::size_t>{0, 0, 0, 1024, 2048, 3072, 0}));
  EXPECT_EQ(rotating.allocated_[0], 4096u);  // receive: four slices
  // 4096 B: one slice.
  EXPECT_EQ(rotating.offsets_.back(), 0u);
  recording_backend fixed(false);
  (void)run_sweep(world, fixed, s);
  for (const auto offset : fixed.offsets_) EXPECT_EQ(offset, 0u);
  EXPECT_EQ(fixed.allocated_[0], 1024u);
}

TEST(CollectiveSweep, OnlyTheSlicesTheIterationsReachAreAllocated) {
  // 1 KiB calls under -e 64 KiB rotate over 64 slices, but five iterations reach five: five
  // KiB are allocated, not 64 (a 1 GiB sweep allocated about 1 GiB for every size).
  hosts_bootstrap world({"node"}, 0);
  const auto s = out_of_place_sweep(1024, 64 * 1024, 64);
  recording_backend rotating(true);
  const auto rows = run_sweep(world, rotating, s);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].out_of_place.wrong, 0);
  ASSERT_GE(rotating.allocated_.size(), 4u);
  EXPECT_EQ(rotating.allocated_[0], 5u * 1024);   // receive
  EXPECT_EQ(rotating.allocated_[1], 5u * 1024);   // send
  EXPECT_EQ(rotating.allocated_[2], 64u * 1024);  // 64 KiB: one slice
}

TEST(CollectiveSweep, GraphModeRecordsTheTimedIterationsOnceAndReplaysThemPerLaunch) {
  hosts_bootstrap world({"node"}, 0);
  sweep_settings s;
  s.min_bytes = s.max_bytes = 1024;
  s.warmup_iterations = 2;
  s.iterations = 5;
  s.graph_launches = 3;
  s.in_place = false;
  recording_backend backend(true);
  const auto rows = run_sweep(world, backend, s);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].out_of_place.ran);
  EXPECT_EQ(backend.offsets_.size(), 3u);  // the check and two warm-up iterations, run directly
  EXPECT_EQ(backend.recorded_, 5);         // -n iterations recorded once
  EXPECT_EQ(backend.replayed_, 15);        // and replayed -G times
}

#if IRONBENCH_TEST_MPI
TEST(MpiGpuAwareness, TheMpiIsAskedAndItsAnswerNamed) {
  std::string why;
  const auto cuda = mpi_gpu_aware("cuda", why);
  if (cuda.has_value()) {
    // Open MPI answers through MPIX_Query_cuda_support, MPICH through MPIX_GPU_query_support.
    EXPECT_TRUE(why.find("MPIX_Query_cuda_support() = ") != std::string::npos ||
                why.find("MPIX_GPU_query_support(CUDA) = ") != std::string::npos)
        << why;
    EXPECT_NE(why.find(*cuda ? "= 1" : "= 0"), std::string::npos) << why;
  } else {
    EXPECT_EQ(why, "this MPI cannot say whether it takes cuda device pointers");
  }
}

TEST(MpiGpuAwareness, DeviceMemoryBackendSkipsWhatMpiCannotReduceOnDevicesAndCopiesThroughTheGivenCopy) {
  // "Device" memory played by host memory, so the plumbing runs in a one-rank job.
  int copies = 0;
  mpi_device_memory memory{"device buffers, test:0",
                           [](std::size_t bytes) { return recording_backend(false).allocate(bytes); },
                           [&](void* to, const void* from, std::size_t bytes) {
                             ++copies;
                             std::memcpy(to, from, bytes);
                           }};
  auto backend = mpi_device_backend(mpi_world(), memory);
  EXPECT_NE(backend->description().find("(device buffers, test:0)"), std::string::npos);
  EXPECT_NE(backend->unsupported(collective::all_reduce, element_type::bf16, reduce_op::sum, false).find("16-bit"),
            std::string::npos);
  EXPECT_NE(backend->unsupported(collective::reduce_scatter, element_type::fp32, reduce_op::avg, true).find("avg"),
            std::string::npos);
  EXPECT_EQ(backend->unsupported(collective::all_gather, element_type::fp16, reduce_op::sum, false), "");
  EXPECT_EQ(backend->unsupported(collective::all_reduce, element_type::fp32, reduce_op::max, false), "");
  sweep_settings s;
  s.collectives = {collective::broadcast, collective::all_reduce};
  s.min_bytes = s.max_bytes = 4096;
  s.warmup_iterations = 0;
  s.iterations = 2;
  const auto rows = run_sweep(*mpi_world(), *backend, s);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.out_of_place.wrong, 0) << to_string(row.c);
    EXPECT_EQ(row.in_place.wrong, 0) << to_string(row.c);
  }
  EXPECT_EQ(copies, 3);  // out-of-place broadcast at the root: the check and two iterations
}
#endif

TEST(NodeRanks, UnknownLocalRanksComeFromTheRanksSharingTheHostName) {
  const std::vector<std::string> hosts = {"node-a", "node-b", "node-a", "node-b", "node-a"};
  const std::vector<int> expected = {0, 0, 1, 1, 2};
  for (int r = 0; r < 5; ++r) {
    hosts_bootstrap world(hosts, r);
    launch_info launch;
    launch.local_rank_known = false;
    assign_local_ranks_by_host(launch, world, hosts[static_cast<std::size_t>(r)]);
    EXPECT_TRUE(launch.local_rank_known);
    EXPECT_EQ(launch.local_rank, expected[static_cast<std::size_t>(r)]) << "rank " << r;
    EXPECT_EQ(launch.local_size, hosts[static_cast<std::size_t>(r)] == "node-a" ? 3 : 2);
    EXPECT_EQ(launch.rank, r);
    EXPECT_EQ(launch.size, 5);
    EXPECT_EQ(gpu_for(launch, 8), expected[static_cast<std::size_t>(r)]);
  }
  // A local rank the launcher gave for this job is kept; one from an enclosing job (its
  // rank and size are not MPI's, as Slurm's under mpiexec inside sbatch) is not.
  hosts_bootstrap world(hosts, 4);
  launch_info given;
  given.rank = 4;
  given.size = 5;
  given.local_rank = 7;
  assign_local_ranks_by_host(given, world, "node-a");
  EXPECT_EQ(given.local_rank, 7);
  launch_info stale;
  stale.launcher = "slurm";
  stale.rank = 0;
  stale.size = 1;
  stale.local_rank = 0;
  assign_local_ranks_by_host(stale, world, "node-a");
  EXPECT_EQ(stale.local_rank, 2);
  EXPECT_EQ(stale.rank, 4);
  EXPECT_EQ(stale.size, 5);
}

}  // namespace
}  // namespace ironbench::comm

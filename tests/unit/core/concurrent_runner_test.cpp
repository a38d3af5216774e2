// The runner's schedule with several stand-in devices (test benchmarks that sleep, fail, fail
// their check or hang per device): GPUs side by side, then the CPU; --sequential; each case
// verified and recorded per device; a failing or hung device does not stop the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/run_estimate.hpp"
#include "core/runner.hpp"

namespace ironbench::core {
namespace {

using namespace std::chrono_literals;

// What every device's cases do, shared by the test and its benchmarks (which outlive a hung
// case's thread until the test releases it).
struct stand_ins {
  std::map<std::string, std::string> behaviour;  // device id -> normal, fail, wrong, hang, slow
  std::mutex mutex;
  std::condition_variable released_cv;
  bool released = false;
  std::atomic<int> running_now{0};
  std::atomic<int> most_running{0};
  std::atomic<int> hung_returned{0};
  double case_s = 0.05;

  std::string of(const std::string& device) {
    std::lock_guard lock(mutex);
    const auto it = behaviour.find(device);
    return it == behaviour.end() ? "normal" : it->second;
  }
  void release() {
    {
      std::lock_guard lock(mutex);
      released = true;
    }
    released_cv.notify_all();
  }
};

// A benchmark on every device: its case sleeps `case_s` in all, as the device's behaviour says.
class device_benchmark final : public benchmark {
 public:
  device_benchmark(std::string name, stand_ins& world, case_footprint footprint = {})
      : name_(std::move(name)), world_(world), footprint_(std::move(footprint)) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return "test"; }
  std::string unsupported_reason(const device_info&) const override { return {}; }
  std::vector<axis> axes(const device_info&) const override { return {integer_axis("n", {1, 2, 3}, "")}; }
  bool in_first_look(const parameter_set& p, const device_info&) const override { return p.integer("n") != 3; }
  case_cost cost(const parameter_set&, const device_info&) const override {
    case_cost c;
    c.setup_s = world_.case_s;
    c.repetition_s = 1e-3;
    return c;
  }
  case_footprint footprint(const parameter_set&, const device_info&) const override { return footprint_; }
  void run(case_state& state) const override {
    const auto behaviour = world_.of(state.device().id);
    const int now = ++world_.running_now;
    int most = world_.most_running.load();
    while (now > most && !world_.most_running.compare_exchange_weak(most, now)) {
    }
    struct leave {
      stand_ins& w;
      ~leave() { --w.running_now; }
    } on_exit{world_};
    if (behaviour == "hang") {
      std::unique_lock lock(world_.mutex);
      world_.released_cv.wait(lock, [&] { return world_.released; });
      ++world_.hung_returned;
      throw error("released");
    }
    if (behaviour == "fail") throw error(state.device().id + " lost");
    std::this_thread::sleep_for(std::chrono::duration<double>(world_.case_s));
    state.add_flops(1e9);
    const double rep = behaviour == "slow" ? 2e-3 : 1e-3;
    state.measure([&](std::size_t n) { return static_cast<double>(n) * rep; });
    state.require(behaviour != "wrong", "wrong result on " + state.device().id);
  }

 private:
  std::string name_;
  stand_ins& world_;
  case_footprint footprint_;
};

device_info gpu(int index) {
  return {"cuda:" + std::to_string(index), device_kind::cuda, index, "GPU", 1u << 30, json::object()};
}

struct concurrent_run : ::testing::Test {
  stand_ins world;
  registry benchmarks;
  std::vector<device_info> devices{
      {"cpu", device_kind::cpu, 0, "CPU", 1u << 30, json::object()}, gpu(0), gpu(1), gpu(2)};
  run_options options;

  concurrent_run() {
    benchmarks.add(std::make_unique<device_benchmark>("work", world));
    options.settings.warmup_s = 0;
    options.settings.min_time_s = 0;
    options.settings.max_time_s = 0.01;
    options.settings.min_sample_s = 0;
    options.settings.target_cv = 1;
    options.schedule = schedule_mode::concurrent;
  }
  ~concurrent_run() override {
    world.release();
    // A hung case's thread returns once released; wait for it before the benchmarks go.
    for (int i = 0; i < 200 && world.running_now.load() > 0; ++i) std::this_thread::sleep_for(10ms);
  }

  std::vector<planned_case> plan() { return plan_run(benchmarks, devices, options); }
};

const case_result& find(const run_result& run, const std::string& device, std::int64_t n) {
  for (const auto& c : run.cases) {
    if (c.device == device && c.params.integer("n") == n) return c;
  }
  throw error("no case");
}

TEST_F(concurrent_run, TheFirstLookKeepsItsCasesUnlessAnAxisIsOverridden) {
  EXPECT_EQ(plan().size(), 4u * 2u);
  options.overrides.push_back(parse_axis_override("n=1,2,3"));
  EXPECT_EQ(plan().size(), 4u * 3u);
}

TEST_F(concurrent_run, GpusRunSideBySideThenTheCpuAlone) {
  run_result run;
  const auto t0 = std::chrono::steady_clock::now();
  const auto execution = execute_plan(plan(), options, run);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(execution.left_running());
  ASSERT_EQ(run.cases.size(), 8u);
  EXPECT_EQ(run.status, run_status::valid);
  EXPECT_EQ(world.most_running.load(), 3);  // the three GPUs at once, never the CPU beside them
  EXPECT_LT(wall, 8 * world.case_s);        // one after another would take 8 cases' time
  double gpus_end = 0;
  for (const auto& c : run.cases) {
    ASSERT_TRUE(c.schedule.has_value());
    if (c.device != "cpu") gpus_end = std::max(gpus_end, c.schedule->start_s + c.schedule->wall_s);
  }
  for (const auto& c : run.cases) {
    if (c.device == "cpu") {
      EXPECT_GE(c.schedule->start_s, gpus_end - 1e-6);
      EXPECT_EQ(c.schedule->stage, "host");
      EXPECT_TRUE(c.schedule->concurrent_with.empty());
    } else {
      EXPECT_EQ(c.schedule->stage, "gpus");
      EXPECT_EQ(c.schedule->concurrent_with.size(), 2u) << c.device;  // the two other GPUs
    }
  }
  // In plan order (benchmark, then device, then parameters), whatever order they ran in.
  EXPECT_EQ(run.cases[0].device, "cpu");
  EXPECT_EQ(run.cases[2].device, "cuda:0");
  EXPECT_EQ(run.cases[3].params.integer("n"), 2);
  const auto& schedule = run.settings.at("schedule");
  EXPECT_EQ(schedule.at("mode"), "concurrent");
  ASSERT_EQ(schedule.at("stages").size(), 2u);
  EXPECT_EQ(schedule.at("stages")[0].at("stage"), "gpus");
  EXPECT_EQ(schedule.at("stages")[0].at("devices").size(), 3u);
  EXPECT_EQ(schedule.at("stages")[1].at("stage"), "host");
  EXPECT_GT(schedule.at("estimate_s").get<double>(), 0.0);
}

TEST_F(concurrent_run, SequentialRunsOneCaseAtATimeInPlanOrder) {
  options.schedule = schedule_mode::sequential;
  run_result run;
  execute_plan(plan(), options, run);
  ASSERT_EQ(run.cases.size(), 8u);
  EXPECT_EQ(world.most_running.load(), 1);
  for (std::size_t i = 1; i < run.cases.size(); ++i) {
    EXPECT_GE(run.cases[i].schedule->start_s,
              run.cases[i - 1].schedule->start_s + run.cases[i - 1].schedule->wall_s - 1e-6);
    EXPECT_EQ(run.cases[i].schedule->stage, "sequential");
    EXPECT_TRUE(run.cases[i].schedule->concurrent_with.empty());
  }
  EXPECT_EQ(run.settings.at("schedule").at("mode"), "sequential");
}

TEST_F(concurrent_run, EachDeviceIsVerifiedOnItsOwn) {
  world.behaviour["cuda:1"] = "wrong";
  run_result run;
  execute_plan(plan(), options, run);
  for (const auto& c : run.cases) {
    if (c.device == "cuda:1") {
      EXPECT_EQ(c.status, case_status::invalid);
      EXPECT_EQ(c.reason, "wrong result on cuda:1");
      EXPECT_TRUE(c.timing.has_value());  // measured, kept, flagged
    } else {
      EXPECT_EQ(c.status, case_status::valid) << c.device;
    }
  }
  EXPECT_EQ(run.status, run_status::invalid);
}

TEST_F(concurrent_run, AFailingDeviceDoesNotStopTheOthers) {
  world.behaviour["cuda:2"] = "fail";
  run_result run;
  const auto execution = execute_plan(plan(), options, run);
  EXPECT_FALSE(execution.left_running());
  ASSERT_EQ(run.cases.size(), 8u);
  for (const auto& c : run.cases) {
    if (c.device == "cuda:2") {
      EXPECT_EQ(c.status, case_status::failed);
      EXPECT_EQ(c.reason, "cuda:2 lost");
    } else {
      EXPECT_EQ(c.status, case_status::valid) << c.device;
    }
  }
}

TEST_F(concurrent_run, AHungDeviceIsNamedWithinItsTimeLimitAndTheOthersFinish) {
  world.behaviour["cuda:1"] = "hang";
  options.case_time_limit_s = 0.3;
  run_result run;
  const auto t0 = std::chrono::steady_clock::now();
  const auto execution = execute_plan(plan(), options, run);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(wall, 3.0);  // bounded by the case's limit, not by the hang
  EXPECT_TRUE(execution.left_running());
  EXPECT_EQ(execution.lost_devices, std::vector<std::string>{"cuda:1"});
  ASSERT_EQ(run.cases.size(), 8u);  // every case recorded
  const auto& hung = find(run, "cuda:1", 1);
  EXPECT_EQ(hung.status, case_status::failed);
  EXPECT_NE(hung.reason.find("no result within the case's time limit of 0.3 s: cuda:1 hung"), std::string::npos)
      << hung.reason;
  const auto& after = find(run, "cuda:1", 2);
  EXPECT_EQ(after.status, case_status::skipped);
  EXPECT_NE(after.reason.find("not run: cuda:1 did not end work n=1 within its time limit"), std::string::npos)
      << after.reason;
  for (const auto& c : run.cases) {
    if (c.device != "cuda:1") {
      EXPECT_EQ(c.status, case_status::valid) << c.device;
    }
  }
  EXPECT_EQ(run.status, run_status::invalid);
  const auto& schedule = run.settings.at("schedule");
  EXPECT_EQ(schedule.at("lost_devices"), json::array({"cuda:1"}));
  EXPECT_EQ(schedule.at("hung").at(0).at("case"), "work n=1");
  world.release();
  for (int i = 0; i < 200 && world.hung_returned.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(world.hung_returned.load(), 1);  // its thread ended on its own, touching nothing of the run
}

TEST_F(concurrent_run, AHangInASequentialRunLetsTheRestRun) {
  world.behaviour["cuda:0"] = "hang";
  options.schedule = schedule_mode::sequential;
  options.case_time_limit_s = 0.2;
  run_result run;
  const auto execution = execute_plan(plan(), options, run);
  EXPECT_EQ(execution.lost_devices, std::vector<std::string>{"cuda:0"});
  EXPECT_EQ(find(run, "cuda:0", 2).status, case_status::skipped);
  EXPECT_EQ(find(run, "cuda:2", 2).status, case_status::valid);
  EXPECT_EQ(find(run, "cpu", 2).status, case_status::valid);
}

TEST_F(concurrent_run, ProgressNamesEachDeviceWithItsCountsAndTimeLeft) {
  std::vector<std::string> lines;
  std::map<std::string, std::size_t> last_done;
  std::size_t events = 0;
  bool side_by_side = false;
  run_result run;
  execute_plan(plan(), options, run, [&](const progress_event& e) {
    ++events;
    side_by_side = e.side_by_side;
    EXPECT_EQ(e.total, 8u);
    EXPECT_GE(e.eta_s, 0.0);
    ASSERT_EQ(e.devices.size(), 4u);
    const auto& d = e.devices[e.device];
    EXPECT_EQ(d.device, e.planned.device->id);
    EXPECT_EQ(d.total, 2u);
    if (e.what == progress_event::kind::started) {
      EXPECT_FALSE(d.current.empty());
      EXPECT_EQ(e.result, nullptr);
    } else {
      ASSERT_NE(e.result, nullptr);
      EXPECT_TRUE(d.current.empty());
      EXPECT_EQ(d.done, last_done[d.device] + 1);
      last_done[d.device] = d.done;
    }
  });
  EXPECT_EQ(events, 16u);
  EXPECT_TRUE(side_by_side);
  for (const auto& [device, done] : last_done) EXPECT_EQ(done, 2u) << device;
}

TEST_F(concurrent_run, CasesOverSeveralGpusShareNoneAndHostCopiesRunAlone) {
  // Peer cases: each uses the next GPU too; host-link cases: nothing beside them.
  benchmarks = registry();
  case_footprint host;
  host.host_links = true;
  benchmarks.add(std::make_unique<device_benchmark>("copy", world, host));
  devices = {gpu(0), gpu(1), gpu(2), gpu(3)};
  run_result copies;
  execute_plan(plan(), options, copies);
  EXPECT_EQ(world.most_running.load(), 1);
  for (const auto& c : copies.cases) EXPECT_EQ(c.schedule->stage, "host_links");

  struct pair_benchmark : benchmark {
    stand_ins& world;
    explicit pair_benchmark(stand_ins& w) : world(w) {}
    std::string name() const override { return "p2p"; }
    std::string summary() const override { return "test"; }
    std::string unsupported_reason(const device_info&) const override { return {}; }
    std::vector<axis> axes(const device_info& d) const override {
      const int peer = (d.index + 1) % 4;
      return {string_axis("peer", {"cuda:" + std::to_string(peer)}, "")};
    }
    case_footprint footprint(const parameter_set& p, const device_info&) const override {
      case_footprint f;
      f.other_devices.push_back(p.string("peer"));
      return f;
    }
    void run(case_state& state) const override {
      std::this_thread::sleep_for(50ms);
      state.measure([](std::size_t n) { return static_cast<double>(n) * 1e-3; });
    }
  };
  benchmarks = registry();
  benchmarks.add(std::make_unique<pair_benchmark>(world));
  run_result pairs;
  execute_plan(plan(), options, pairs);
  ASSERT_EQ(pairs.cases.size(), 4u);
  // cuda:0->1 and cuda:2->3 side by side; then cuda:1->2 and cuda:3->0.
  for (const auto& c : pairs.cases) {
    EXPECT_EQ(c.schedule->stage, "peers");
    const auto& with = c.schedule->concurrent_with;
    const auto peer = c.params.string("peer");
    EXPECT_EQ(std::count(with.begin(), with.end(), peer), 0) << c.device << " ran beside its own peer";
    EXPECT_EQ(with.size(), 1u) << c.device;
  }
}

TEST_F(concurrent_run, AnInterruptedRunStartsNothingMore) {
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  options.schedule = schedule_mode::sequential;
  run_result run;
  execute_plan(plan(), options, run, [&](const progress_event& e) {
    if (e.what == progress_event::kind::finished && e.done == 2) cancel = true;
  });
  EXPECT_EQ(run.status, run_status::interrupted);
  EXPECT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.status_reason, "interrupted after 2 of 8 cases");
}

TEST_F(concurrent_run, AnInterruptDoesNotWaitForAHungDevicesTimeLimit) {
  world.behaviour["cuda:0"] = "hang";
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  options.case_time_limit_s = 600;
  options.interrupt_grace_s = 0.2;
  run_result run;
  const auto t0 = std::chrono::steady_clock::now();
  const auto execution = execute_plan(plan(), options, run, [&](const progress_event& e) {
    if (e.what == progress_event::kind::finished && e.planned.device->id == "cuda:1") cancel = true;
  });
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(execution.lost_devices, std::vector<std::string>{"cuda:0"});
  EXPECT_EQ(run.status, run_status::interrupted);
  EXPECT_EQ(find(run, "cuda:0", 1).reason, "did not stop within 0.2 s of the interrupt: cuda:0 hung");
}

TEST_F(concurrent_run, ASlowGpuAmongItsPeersIsNamed) {
  world.behaviour["cuda:2"] = "slow";
  run_result run;
  run.devices = devices;
  execute_plan(plan(), options, run);
  const auto& slow = run.settings.at("slow_devices");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].at("device"), "cuda:2");
  EXPECT_EQ(slow[0].at("verdict"), "FAIL");  // half the others' rate
  EXPECT_NEAR(slow[0].at("ratio").get<double>(), 0.5, 1e-9);
}

}  // namespace
}  // namespace ironbench::core

#include "core/run_schedule.hpp"

#include <algorithm>

namespace ironbench::core {

const char* to_string(schedule_mode mode) { return mode == schedule_mode::concurrent ? "concurrent" : "sequential"; }

const char* to_string(run_stage stage) {
  switch (stage) {
    case run_stage::gpus: return "gpus";
    case run_stage::host_links: return "host_links";
    case run_stage::peers: return "peers";
    case run_stage::host: return "host";
  }
  return "host";
}

const char* describe(run_stage stage) {
  switch (stage) {
    case run_stage::gpus: return "GPUs side by side, one case at a time per GPU";
    case run_stage::host_links: return "host<->GPU copies, one at a time";
    case run_stage::peers: return "GPU pairs side by side where they share no GPU";
    case run_stage::host: return "the CPU, one case at a time, after any GPU";
  }
  return "";
}

std::vector<scheduled_case> schedule_plan(const std::vector<planned_case>& plan, schedule_mode mode) {
  std::vector<scheduled_case> out;
  out.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& p = plan[i];
    scheduled_case s;
    s.index = i;
    s.devices.push_back(p.device->id);
    case_footprint footprint;
    if (p.skip_reason.empty() && p.bench != nullptr) footprint = p.bench->footprint(p.params, *p.device);
    for (const auto& other : footprint.other_devices) {
      if (std::find(s.devices.begin(), s.devices.end(), other) == s.devices.end()) s.devices.push_back(other);
    }
    if (!is_gpu(*p.device)) {
      s.stage = run_stage::host;
    } else if (footprint.host_links) {
      s.stage = run_stage::host_links;
    } else if (s.devices.size() > 1) {
      s.stage = run_stage::peers;
    } else {
      s.stage = run_stage::gpus;
    }
    if (mode == schedule_mode::sequential) {
      s.step = 0;
      s.alone = true;
    } else {
      s.step = static_cast<std::size_t>(s.stage);
      s.alone = s.stage == run_stage::host_links || s.stage == run_stage::host;
    }
    out.push_back(std::move(s));
  }
  return out;
}

case_dispatcher::case_dispatcher(std::vector<scheduled_case> cases) : cases_(std::move(cases)) {
  pending_.reserve(cases_.size());
  for (std::size_t i = 0; i < cases_.size(); ++i) pending_.push_back(i);
}

bool case_dispatcher::busy(const std::string& device) const {
  return std::any_of(running_.begin(), running_.end(), [&](std::size_t r) {
    const auto& d = cases_[r].devices;
    return std::find(d.begin(), d.end(), device) != d.end();
  });
}

bool case_dispatcher::lost(const std::string& device) const {
  return std::find(lost_.begin(), lost_.end(), device) != lost_.end();
}

std::vector<std::size_t> case_dispatcher::start_ready() {
  std::vector<std::size_t> started;
  if (pending_.empty()) return started;
  std::size_t step = cases_[pending_.front()].step;
  for (const auto p : pending_) step = std::min(step, cases_[p].step);
  for (const auto r : running_) step = std::min(step, cases_[r].step);
  const auto alone_running = [&] {
    return std::any_of(running_.begin(), running_.end(), [&](std::size_t r) { return cases_[r].alone; });
  };
  for (auto it = pending_.begin(); it != pending_.end();) {
    const auto& c = cases_[*it];
    if (alone_running()) break;
    if (c.step != step) {
      ++it;
      continue;
    }
    const bool stranded =
        std::any_of(c.devices.begin(), c.devices.end(), [&](const std::string& d) { return lost(d); });
    if (stranded) {  // left to take_stranded
      ++it;
      continue;
    }
    bool may = true;
    if (c.alone) {
      may = running_.empty();
    } else {
      for (const auto& d : c.devices) may = may && !busy(d);
    }
    if (!may) {
      if (c.alone) break;  // in order: nothing after it overtakes a case that runs alone
      ++it;
      continue;
    }
    running_.push_back(*it);
    started.push_back(*it);
    it = pending_.erase(it);
  }
  return started;
}

void case_dispatcher::finish(std::size_t position) {
  running_.erase(std::remove(running_.begin(), running_.end(), position), running_.end());
}

void case_dispatcher::abandon(std::size_t position) {
  for (const auto& d : cases_[position].devices) {
    if (!lost(d)) lost_.push_back(d);
  }
  finish(position);
}

std::vector<std::pair<std::size_t, std::string>> case_dispatcher::take_stranded() {
  std::vector<std::pair<std::size_t, std::string>> stranded;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const auto& devices = cases_[*it].devices;
    const auto gone = std::find_if(devices.begin(), devices.end(), [&](const std::string& d) { return lost(d); });
    if (gone == devices.end()) {
      ++it;
      continue;
    }
    stranded.emplace_back(*it, *gone);
    it = pending_.erase(it);
  }
  return stranded;
}

void case_dispatcher::drop_pending() { pending_.clear(); }

}  // namespace ironbench::core

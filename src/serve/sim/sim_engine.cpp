#include "serve/sim/sim_engine.hpp"

#include <algorithm>

namespace ironbench::serve {

sim_engine::sim_engine(const sim_settings& settings) : settings_(settings), random_(settings.seed) {}

bool sim_engine::submit(const sim_request& request) {
  if (request.prompt_tokens + request.max_tokens > settings_.kv_cache_tokens) return false;
  waiting_.push_back(request);
  return true;
}

void sim_engine::cancel(std::uint64_t id) {
  const auto w = std::find_if(waiting_.begin(), waiting_.end(), [&](const sim_request& r) { return r.id == id; });
  if (w != waiting_.end()) {
    waiting_.erase(w);
    return;
  }
  const auto r = std::find_if(running_.begin(), running_.end(), [&](const sequence& s) { return s.request.id == id; });
  if (r != running_.end()) {
    kv_used_ -= r->request.prompt_tokens + r->request.max_tokens;
    running_.erase(r);
  }
}

std::optional<sim_step> sim_engine::next_step() {
  sim_step step;
  double prefill_tokens = 0;
  while (!waiting_.empty() && static_cast<int>(running_.size()) < settings_.max_num_seqs) {
    const auto& next = waiting_.front();
    const auto need = next.prompt_tokens + next.max_tokens;
    if (kv_used_ + need > settings_.kv_cache_tokens) break;  // FIFO: later requests wait too
    kv_used_ += need;
    prefill_tokens +=
        static_cast<double>(next.prompt_tokens - std::clamp<std::int64_t>(next.cached_tokens, 0, next.prompt_tokens));
    running_.push_back({next, 0});
    waiting_.pop_front();
    ++step.admitted;
  }
  if (running_.empty()) return std::nullopt;
  double ms = prefill_tokens / settings_.prefill_tokens_per_s * 1e3 + settings_.decode_base_ms +
              settings_.decode_per_seq_ms * static_cast<double>(running_.size());
  const auto& adapter_cost = settings_.adapter_step_cost_ms;
  std::vector<bool> adapter_running(adapter_cost.size(), false);
  for (const auto& s : running_) {
    const int a = s.request.adapter;
    if (a < 0 || static_cast<std::size_t>(a) >= adapter_cost.size() || adapter_running[a]) continue;
    adapter_running[a] = true;
    ms += adapter_cost[a];
  }
  if (settings_.jitter > 0) {
    std::normal_distribution<double> noise(1.0, settings_.jitter);
    ms *= std::max(0.1, noise(random_));
  }
  step.duration_s = ms / 1e3;
  for (auto& s : running_) {
    const bool finished = s.generated + 1 >= s.request.max_tokens;
    step.emissions.push_back({s.request.id, s.generated, finished});
    ++s.generated;
  }
  const auto end = std::remove_if(running_.begin(), running_.end(), [&](const sequence& s) {
    if (s.generated < s.request.max_tokens) return false;
    kv_used_ -= s.request.prompt_tokens + s.request.max_tokens;
    return true;
  });
  running_.erase(end, running_.end());
  return step;
}

}  // namespace ironbench::serve

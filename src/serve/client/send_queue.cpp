#include "serve/client/send_queue.hpp"

#include <limits>
#include <map>

namespace ironbench::serve {

send_queue::send_queue(const std::vector<const prepared_request*>& requests, const std::vector<double>& schedule)
    : times_(requests.size(), std::numeric_limits<double>::infinity()),
      next_turn_(requests.size()),
      previous_turn_(requests.size()),
      requests_(requests),
      total_(requests.size()) {
  std::map<std::size_t, std::size_t> last_of_session;
  std::size_t starter = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto session = requests[i]->session;
    if (session != no_session) {
      if (const auto last = last_of_session.find(session); last != last_of_session.end()) {
        next_turn_[last->second] = i;
        previous_turn_[i] = last->second;
        last->second = i;
        ++waiting_;
        continue;
      }
      last_of_session[session] = i;
    }
    times_[i] = starter < schedule.size() ? schedule[starter] : 0;
    ++starter;
    due_.emplace(times_[i], i);
  }
}

std::optional<double> send_queue::next_due() const {
  if (due_.empty()) return std::nullopt;
  return due_.top().first;
}

std::size_t send_queue::pop() {
  const auto i = due_.top().second;
  due_.pop();
  ++popped_;
  return i;
}

std::optional<std::size_t> send_queue::previous_turn(std::size_t i) const { return previous_turn_[i]; }

std::optional<std::size_t> send_queue::next_turn(std::size_t i) const { return next_turn_[i]; }

std::vector<std::size_t> send_queue::finished(std::size_t i, bool success, double end_s) {
  std::vector<std::size_t> dropped;
  auto next = next_turn_[i];
  if (!next) return dropped;
  if (success) {
    --waiting_;
    times_[*next] = end_s + requests_[*next]->think_s;
    due_.emplace(times_[*next], *next);
    return dropped;
  }
  for (; next; next = next_turn_[*next]) {
    --waiting_;
    dropped.push_back(*next);
  }
  return dropped;
}

}  // namespace ironbench::serve

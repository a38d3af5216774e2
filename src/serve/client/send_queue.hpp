// Which request the load generator sends next, and when: in the order of a precomputed
// schedule, except for the later turns of a conversation, which become due only once the turn
// before them has been answered (its end plus the user's think time). A turn whose
// predecessor failed is never sent: the conversation ends there.
#pragma once

#include <cstddef>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "serve/client/load_generator.hpp"

namespace ironbench::serve {

class send_queue {
 public:
  /// `requests` in the order they were prepared (a conversation's turns in turn order);
  /// `schedule` the send time of each request that starts something (a request outside any
  /// conversation, or a first turn), in the same order as those requests.
  send_queue(const std::vector<const prepared_request*>& requests, const std::vector<double>& schedule);

  /// Whether a request is due at `now`.
  [[nodiscard]] bool has_due(double now) const { return !due_.empty() && due_.top().first <= now; }
  /// When the next queued request is due; nullopt when none is queued (later turns may still
  /// be waiting for their predecessors).
  [[nodiscard]] std::optional<double> next_due() const;
  /// The index of the request due first, removed from the queue.
  [[nodiscard]] std::size_t pop();
  /// When request `i` became (or becomes) due.
  [[nodiscard]] double due(std::size_t i) const { return times_[i]; }
  /// The request sent before `i` in its conversation, or nullopt for a first turn.
  [[nodiscard]] std::optional<std::size_t> previous_turn(std::size_t i) const;
  /// The turn after request `i` in its conversation (none: the last turn, or no conversation).
  [[nodiscard]] std::optional<std::size_t> next_turn(std::size_t i) const;
  /// Request `i` ended at `end_s`. Success: the conversation's next turn is queued, due
  /// `think_s` later. Failure: the conversation's remaining turns are dropped and returned.
  std::vector<std::size_t> finished(std::size_t i, bool success, double end_s);
  /// Nothing queued and no turn waiting for its predecessor.
  [[nodiscard]] bool empty() const { return due_.empty() && waiting_ == 0; }
  /// Requests never queued or never popped (interrupted, or a conversation that ended early).
  [[nodiscard]] std::size_t unsent() const { return total_ - popped_; }

 private:
  using entry = std::pair<double, std::size_t>;  // due time, index: earliest first, then by index
  std::priority_queue<entry, std::vector<entry>, std::greater<>> due_;
  std::vector<double> times_;
  std::vector<std::optional<std::size_t>> next_turn_, previous_turn_;
  const std::vector<const prepared_request*>& requests_;
  std::size_t waiting_ = 0, total_ = 0, popped_ = 0;
};

}  // namespace ironbench::serve

#include "train/gradient_reducer.hpp"

#include "train/torch_compat.hpp"

namespace ironbench::train {

gradient_reducer::gradient_reducer(std::vector<torch::Tensor> params, gradient_transport& transport,
                                   double bucket_megabytes)
    : params_(std::move(params)), transport_(transport) {
  const auto bucket_bytes = static_cast<std::int64_t>(bucket_megabytes * 1e6);
  // Reverse order: the backward pass produces the last layers' gradients first.
  std::vector<std::vector<std::size_t>> members(1);
  std::int64_t filled = 0;
  for (std::size_t n = params_.size(); n-- > 0;) {
    const auto bytes = params_[n].numel() * static_cast<std::int64_t>(sizeof(float));
    if (!members.back().empty() && filled + bytes > bucket_bytes) {
      members.emplace_back();
      filled = 0;
    }
    members.back().push_back(n);
    filled += bytes;
  }
  for (const auto& indices : members) {
    if (indices.empty()) continue;
    std::int64_t elements = 0;
    for (const auto i : indices) elements += params_[i].numel();
    bucket b;
    b.flat = torch::zeros({elements}, params_[indices.front()].options().dtype(torch::kFloat));
    b.parameters = indices.size();
    const auto bucket_index = buckets_.size();
    std::int64_t offset = 0;
    for (const auto i : indices) {
      auto& p = params_[i];
      if (p.scalar_type() != torch::kFloat) throw std::invalid_argument("data parallelism needs fp32 parameters");
      p.mutable_grad() = b.flat.narrow(0, offset, p.numel()).view(p.sizes());
      offset += p.numel();
      accumulators_.push_back(
          compat::on_gradient_accumulated(p, [this, bucket_index] { on_gradient_ready(bucket_index); }));
    }
    buckets_.push_back(std::move(b));
  }
}

gradient_reducer::~gradient_reducer() = default;

void gradient_reducer::broadcast_parameters() {
  torch::NoGradGuard no_grad;
  for (auto& p : params_) transport_.broadcast(p);
}

void gradient_reducer::on_gradient_ready(std::size_t bucket_index) {
  if (!reduce_) return;
  ++buckets_[bucket_index].ready;
  // Buckets start in index order on every rank, so that each rank's collectives match.
  bool started = false;
  while (next_to_start_ < buckets_.size() && buckets_[next_to_start_].ready == buckets_[next_to_start_].parameters) {
    auto& b = buckets_[next_to_start_++];
    b.started = true;
    transport_.start_sum(b.flat);
    started = true;
  }
  if (!started) transport_.progress();
}

void gradient_reducer::finish() {
  if (!reduce_) return;
  for (; next_to_start_ < buckets_.size(); ++next_to_start_) transport_.start_sum(buckets_[next_to_start_].flat);
  transport_.wait_all();
  next_to_start_ = 0;
  const double ranks = transport_.size();
  for (auto& b : buckets_) {
    b.flat.div_(ranks);
    b.ready = 0;
    b.started = false;
  }
}

void gradient_reducer::zero_grad() {
  for (auto& b : buckets_) b.flat.zero_();
}

}  // namespace ironbench::train

#include "comm/nccl/nccl_communicator.hpp"

#include <fmt/format.h>

#include <thread>

#if defined(IRONBENCH_GPU_HIP)
#include <rccl/rccl.h>
#define IRONBENCH_COLLECTIVES_LIBRARY "rccl"
#else
#include <nccl.h>
#define IRONBENCH_COLLECTIVES_LIBRARY "nccl"
#endif

#include "comm/gpu_comm_buffer.hpp"
#include "core/error.hpp"
#include "device/gpu/gpu_check.hpp"
#include "device/gpu/gpu_memory.hpp"
#include "device/gpu/gpu_stream.hpp"
#include "schema/collective_kinds.hpp"

namespace ironbench::comm {
namespace {

#define IRONBENCH_NCCL_CHECK(call)                                                                               \
  do {                                                                                                           \
    const ncclResult_t ironbench_result_ = (call);                                                               \
    if (ironbench_result_ != ncclSuccess) {                                                                      \
      throw ::ironbench::error(                                                                                  \
          ::ironbench::check_failure_message(__FILE__, __LINE__, #call, ncclGetErrorString(ironbench_result_))); \
    }                                                                                                            \
  } while (false)

ncclDataType_t nccl_type(element_type type) {
  switch (type) {
    case element_type::int8: return ncclInt8;
    case element_type::int32: return ncclInt32;
    case element_type::fp16: return ncclFloat16;
    case element_type::bf16: return ncclBfloat16;
    case element_type::fp32: return ncclFloat32;
    case element_type::fp64: return ncclFloat64;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return ncclSum;
    case reduce_op::prod: return ncclProd;
    case reduce_op::max: return ncclMax;
    case reduce_op::min: return ncclMin;
    case reduce_op::avg: return ncclAvg;
  }
  return ncclSum;
}

class nccl_backend final : public collective_backend {
 public:
  nccl_backend(std::shared_ptr<bootstrap> world, int gpu) : world_(std::move(world)), gpu_(gpu) {
    device::use_gpu(gpu_);
    stream_ = std::make_unique<device::gpu_stream>();
    ncclUniqueId id{};
    if (world_->rank() == 0) IRONBENCH_NCCL_CHECK(ncclGetUniqueId(&id));
    world_->broadcast_bytes(&id, sizeof id);
    IRONBENCH_NCCL_CHECK(ncclCommInitRank(&comm_, world_->size(), id, world_->rank()));
    int version = 0;
    ncclGetVersion(&version);
    version_ = fmt::format("{}.{}.{}", version / 10000, (version / 100) % 100, version % 100);
  }
  nccl_backend(const nccl_backend&) = delete;
  nccl_backend& operator=(const nccl_backend&) = delete;
  ~nccl_backend() override {
    release_graph();
    if (comm_ == nullptr) return;
    // A communicator that saw an error may never finish its work: abort it rather than wait.
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm_, &state) != ncclSuccess || state != ncclSuccess) {
      ncclCommAbort(comm_);
    } else {
      ncclCommDestroy(comm_);
    }
  }

  std::string description() const override {
    return fmt::format("{} {} (device buffers, {}:{})", IRONBENCH_COLLECTIVES_LIBRARY, version_, IRONBENCH_GPU_VENDOR,
                       gpu_);
  }

  std::unique_ptr<comm_buffer> allocate(std::size_t bytes) override {
    device::use_gpu(gpu_);
    return gpu_comm_buffer(bytes);
  }

  std::string unsupported(collective c, element_type, reduce_op, bool in_place) const override {
    if (in_place && schema::kind_of(c).transfer != nullptr) {
      return fmt::format("{} in place: NCCL's grouped send/receive cannot share one buffer", to_string(c));
    }
    return {};
  }

  std::size_t run(collective c, comm_buffer* send, comm_buffer& recv, const call_shape& shape, element_type type,
                  reduce_op op, int root) override {
    const bool in_place = send == nullptr;
    auto* out = static_cast<std::byte*>(recv.data());
    const void* in = in_place ? out : send->data();
    const auto t = nccl_type(type);
    const std::size_t element = element_size(type);
    const int rank = world_->rank();
    const int n = world_->size();
    cudaStream_t s = stream_->get();
    // A point-to-point collective (alltoall, sendrecv, ...) is its row's transfers as one group
    // of sends and receives, as nccl-tests runs alltoall.
    if (const auto transfer = schema::kind_of(c).transfer; transfer != nullptr) {
      grouped([&] {
        for (int peer = 0; peer < n; ++peer) {
          const auto to = transfer(shape, rank, peer, n);
          if (to.count > 0) {
            const auto* from = static_cast<const std::byte*>(in) + to.send_offset * element;
            const ncclResult_t sent = ncclSend(from, to.count, t, peer, comm_, s);
            if (sent != ncclSuccess) return sent;
          }
          const auto back = transfer(shape, peer, rank, n);
          if (back.count > 0) {
            const ncclResult_t received = ncclRecv(out + back.recv_offset * element, back.count, t, peer, comm_, s);
            if (received != ncclSuccess) return received;
          }
        }
        return ncclSuccess;
      });
      return 0;
    }
    switch (c) {
      case collective::all_reduce:
        IRONBENCH_NCCL_CHECK(ncclAllReduce(in, out, shape.recv_count, t, nccl_op(op), comm_, s));
        return 0;
      case collective::reduce:
        IRONBENCH_NCCL_CHECK(ncclReduce(in, out, shape.send_count, t, nccl_op(op), root, comm_, s));
        return 0;
      case collective::reduce_scatter: {
        // In place, the result lands in this rank's block of the input buffer (NCCL's layout).
        const std::size_t offset = in_place ? static_cast<std::size_t>(rank) * shape.recv_count * element : 0;
        IRONBENCH_NCCL_CHECK(ncclReduceScatter(in, out + offset, shape.recv_count, t, nccl_op(op), comm_, s));
        return offset;
      }
      case collective::all_gather: {
        const void* source = in_place ? out + static_cast<std::size_t>(rank) * shape.send_count * element : in;
        IRONBENCH_NCCL_CHECK(ncclAllGather(source, out, shape.send_count, t, comm_, s));
        return 0;
      }
      case collective::broadcast:
        IRONBENCH_NCCL_CHECK(ncclBroadcast(in, out, shape.recv_count, t, root, comm_, s));
        return 0;
      default: break;  // the point-to-point rows, above
    }
    throw error(fmt::format("{} has no {} call", to_string(c), IRONBENCH_COLLECTIVES_LIBRARY));
  }

  bool rotates_buffers() const override { return true; }

  std::string graph_unsupported() const override { return {}; }
  void begin_graph() override {
    release_graph();
    IRONBENCH_GPU_CHECK(cudaStreamBeginCapture(stream_->get(), cudaStreamCaptureModeThreadLocal));
  }
  void end_graph() override {
    IRONBENCH_GPU_CHECK(cudaStreamEndCapture(stream_->get(), &graph_));
    IRONBENCH_GPU_CHECK(cudaGraphInstantiateWithFlags(&graph_exec_, graph_, 0));
  }
  void replay_graph() override { IRONBENCH_GPU_CHECK(cudaGraphLaunch(graph_exec_, stream_->get())); }
  void discard_graph() override { release_graph(); }

  // Waits for the stream, watching the communicator: a peer that failed or vanished shows as
  // an asynchronous error, which aborts the communicator and throws, instead of a wait that
  // only the watchdog would end.
  void synchronize() override {
    for (;;) {
      const cudaError_t done = cudaStreamQuery(stream_->get());
      if (done == cudaSuccess) return;
      if (done != cudaErrorNotReady) IRONBENCH_GPU_CHECK(done);
      ncclResult_t state = ncclSuccess;
      IRONBENCH_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
      if (state != ncclSuccess) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        IRONBENCH_NCCL_CHECK(state);
      }
      std::this_thread::yield();  // as nccl-tests: a wait this short must not sleep
    }
  }

 private:
  void release_graph() {
    if (graph_exec_ != nullptr) (void)cudaGraphExecDestroy(graph_exec_);
    if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
    graph_exec_ = nullptr;
    graph_ = nullptr;
  }

  // Runs `calls` (which returns the first failure) between ncclGroupStart and ncclGroupEnd;
  // the group is closed even when a call failed, then the failure is thrown.
  template <typename Calls>
  void grouped(Calls&& calls) {
    IRONBENCH_NCCL_CHECK(ncclGroupStart());
    const ncclResult_t first = calls();
    const ncclResult_t closed = ncclGroupEnd();
    IRONBENCH_NCCL_CHECK(first);
    IRONBENCH_NCCL_CHECK(closed);
  }

  std::shared_ptr<bootstrap> world_;
  int gpu_;
  std::unique_ptr<device::gpu_stream> stream_;
  ncclComm_t comm_ = nullptr;
  std::string version_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
};

}  // namespace

std::unique_ptr<collective_backend> nccl_device_backend(std::shared_ptr<bootstrap> world, int gpu_index) {
  return std::make_unique<nccl_backend>(std::move(world), gpu_index);
}

}  // namespace ironbench::comm

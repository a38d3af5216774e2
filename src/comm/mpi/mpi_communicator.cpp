#include "comm/mpi/mpi_communicator.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // Open MPI's GPU-awareness queries
#endif

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "blas/float_formats.hpp"
#include "comm/collective_data.hpp"
#include "comm/host_comm_buffer.hpp"
#include "core/error.hpp"
#include "schema/collective_kinds.hpp"

namespace ironbench::comm {
namespace {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

#define IRONBENCH_MPI_CHECK(call)                                                                          \
  do {                                                                                                     \
    const int ironbench_code_ = (call);                                                                    \
    if (ironbench_code_ != MPI_SUCCESS) {                                                                  \
      throw ::ironbench::error(                                                                            \
          ::ironbench::check_failure_message(__FILE__, __LINE__, #call, mpi_error_text(ironbench_code_))); \
    }                                                                                                      \
  } while (false)

// MPI for the life of the process: initialised on first use, finalised at exit.
class mpi_session final : public bootstrap {
 public:
  mpi_session() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised == 0) {
      // Plain MPI_Init, as OSU and nccl-tests do: asking for MPI_THREAD_FUNNELED turns on
      // thread-safety paths that cost Open MPI ~0.1 us per small collective. Only the main
      // thread calls MPI (the watchdog and samplers never do).
      IRONBENCH_MPI_CHECK(MPI_Init(nullptr, nullptr));
      owns_ = true;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    description_ = std::string(version, static_cast<std::size_t>(length));
    description_ = description_.substr(0, description_.find_first_of(",\n"));
  }
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;
  ~mpi_session() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owns_ && finalised == 0) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string description() const override { return description_; }
  void barrier() override { IRONBENCH_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD)); }
  double sum(double value) override { return reduce(value, MPI_SUM); }
  double max(double value) override { return reduce(value, MPI_MAX); }
  double min(double value) override { return reduce(value, MPI_MIN); }

  std::vector<std::string> gather(const std::string& text) override {
    const int length = static_cast<int>(text.size());
    std::vector<int> lengths(rank_ == 0 ? size_ : 0);
    IRONBENCH_MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    IRONBENCH_MPI_CHECK(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                                    0, MPI_COMM_WORLD));
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      texts.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
    }
    return texts;
  }

  void broadcast_bytes(void* data, std::size_t bytes) override {
    IRONBENCH_MPI_CHECK(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD));
  }

  void all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) override {
    if (bytes_per_rank > static_cast<std::size_t>(INT_MAX)) {
      throw error(fmt::format("{} bytes per rank exceed MPI's 32-bit counts", bytes_per_rank));
    }
    const int count = static_cast<int>(bytes_per_rank);
    IRONBENCH_MPI_CHECK(MPI_Allgather(send, count, MPI_BYTE, receive, count, MPI_BYTE, MPI_COMM_WORLD));
  }

 private:
  double reduce(double value, MPI_Op op) {
    double result = 0;
    IRONBENCH_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, op, MPI_COMM_WORLD));
    return result;
  }

  bool owns_ = false;
  int rank_ = 0;
  int size_ = 1;
  std::string description_;
};

// fp16 and bf16 reductions: MPI has no 16-bit floating-point type, so they travel as
// MPI_UINT16_T and reduce through user-defined operators that decode, combine and round.
template <const blas::small_float_format& format, reduce_op op>
void reduce_16bit(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *length; ++i) {
    const float x = blas::decode_small_float(a[i], format);
    const float y = blas::decode_small_float(b[i], format);
    float r = 0;
    if constexpr (op == reduce_op::prod) {
      r = x * y;
    } else if constexpr (op == reduce_op::max) {
      r = std::max(x, y);
    } else if constexpr (op == reduce_op::min) {
      r = std::min(x, y);
    } else {
      r = x + y;
    }
    b[i] = static_cast<std::uint16_t>(blas::encode_small_float(r, format));
  }
}

MPI_Datatype mpi_type(element_type type) {
  switch (type) {
    case element_type::int8: return MPI_INT8_T;
    case element_type::int32: return MPI_INT32_T;
    case element_type::fp16:
    case element_type::bf16: return MPI_UINT16_T;
    case element_type::fp32: return MPI_FLOAT;
    case element_type::fp64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

class mpi_backend final : public collective_backend {
 public:
  /// Host memory, or with `device` GPU memory handed to a GPU-aware MPI.
  explicit mpi_backend(std::shared_ptr<bootstrap> world, std::optional<mpi_device_memory> device = std::nullopt)
      : world_(std::move(world)), device_(std::move(device)) {
    create<blas::fp16_format>(0);
    create<blas::bf16_format>(1);
  }
  mpi_backend(const mpi_backend&) = delete;
  mpi_backend& operator=(const mpi_backend&) = delete;
  ~mpi_backend() override {
    for (auto& row : ops16_) {
      for (auto& op : row) {
        if (op != MPI_OP_NULL) MPI_Op_free(&op);
      }
    }
  }

  std::string description() const override {
    return world_->description() + (device_ ? " (" + device_->description + ")" : " (host buffers)");
  }

  std::unique_ptr<comm_buffer> allocate(std::size_t bytes) override {
    if (device_) return device_->allocate(bytes);
    return std::make_unique<host_comm_buffer>(bytes);
  }

  std::string unsupported(collective c, element_type type, reduce_op op, bool) const override {
    if (!device_ || !reduces(c)) return {};
    if (type == element_type::fp16 || type == element_type::bf16) {
      return fmt::format(
          "{} reductions on device memory: MPI has no 16-bit float type, and its user-defined "
          "operators run on the host",
          to_string(type));
    }
    if (op == reduce_op::avg) return "avg on device memory: MPI has no average, and its division runs on the host";
    return {};
  }

  std::size_t run(collective c, comm_buffer* send, comm_buffer& recv, const call_shape& shape, element_type type,
                  reduce_op op, int root) override {
    const bool in_place = send == nullptr;
    const int n = world_->size();
    const int rank = world_->rank();
    const auto t = mpi_type(type);
    const auto count = [](std::size_t elements) {
      if (elements > static_cast<std::size_t>(INT_MAX)) {
        throw error(fmt::format("{} elements exceed MPI's 32-bit counts", elements));
      }
      return static_cast<int>(elements);
    };
    void* out = recv.data();
    const void* in = in_place ? MPI_IN_PLACE : send->data();
    switch (c) {
      case collective::all_reduce:
        IRONBENCH_MPI_CHECK(MPI_Allreduce(in, out, count(shape.recv_count), t, mpi_op(op, type), MPI_COMM_WORLD));
        average(op, type, out, shape.recv_count);
        return 0;
      case collective::reduce:
        if (in_place && rank != root) in = out;
        IRONBENCH_MPI_CHECK(MPI_Reduce(in, rank == root ? out : nullptr, count(shape.send_count), t, mpi_op(op, type),
                                       root, MPI_COMM_WORLD));
        if (rank == root) average(op, type, out, shape.recv_count);
        return 0;
      case collective::reduce_scatter:
        IRONBENCH_MPI_CHECK(
            MPI_Reduce_scatter_block(in, out, count(shape.recv_count), t, mpi_op(op, type), MPI_COMM_WORLD));
        average(op, type, out, shape.recv_count);
        return 0;  // MPI's in-place result starts at the buffer's beginning
      case collective::all_gather:
        if (in_place) {
          IRONBENCH_MPI_CHECK(
              MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count(shape.send_count), t, MPI_COMM_WORLD));
        } else {
          IRONBENCH_MPI_CHECK(
              MPI_Allgather(in, count(shape.send_count), t, out, count(shape.send_count), t, MPI_COMM_WORLD));
        }
        return 0;
      case collective::broadcast:
        if (!in_place && rank == root) copy(out, send->data(), shape.send_count * element_size(type));
        IRONBENCH_MPI_CHECK(MPI_Bcast(out, count(shape.recv_count), t, root, MPI_COMM_WORLD));
        return 0;
      case collective::alltoall: {
        const int block = count(shape.send_count / static_cast<std::size_t>(n));
        if (in_place) {
          IRONBENCH_MPI_CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, block, t, MPI_COMM_WORLD));
        } else {
          IRONBENCH_MPI_CHECK(MPI_Alltoall(in, block, t, out, block, t, MPI_COMM_WORLD));
        }
        return 0;
      }
      case collective::alltoallv: {
        // The row's uneven counts, which are symmetric: in place, MPI takes the receive side's
        // counts and displacements for both, and they are the send side's.
        const auto transfer = schema::kind_of(c).transfer;
        for (auto* v : {&send_counts_, &send_displacements_, &recv_counts_, &recv_displacements_}) {
          v->resize(static_cast<std::size_t>(n));
        }
        for (int peer = 0; peer < n; ++peer) {
          const auto p = static_cast<std::size_t>(peer);
          const auto to = transfer(shape, rank, peer, n);
          const auto from = transfer(shape, peer, rank, n);
          send_counts_[p] = count(to.count);
          send_displacements_[p] = count(to.send_offset);
          recv_counts_[p] = count(from.count);
          recv_displacements_[p] = count(from.recv_offset);
        }
        IRONBENCH_MPI_CHECK(MPI_Alltoallv(in, send_counts_.data(), send_displacements_.data(), t, out,
                                          recv_counts_.data(), recv_displacements_.data(), t, MPI_COMM_WORLD));
        return 0;
      }
      case collective::sendrecv: {
        const int next = (rank + 1) % n;
        const int previous = (rank - 1 + n) % n;
        if (in_place) {
          IRONBENCH_MPI_CHECK(MPI_Sendrecv_replace(out, count(shape.recv_count), t, next, 0, previous, 0,
                                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
          IRONBENCH_MPI_CHECK(MPI_Sendrecv(in, count(shape.send_count), t, next, 0, out, count(shape.recv_count), t,
                                           previous, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        return 0;
      }
    }
    return 0;
  }

  void synchronize() override {}

 private:
  template <const blas::small_float_format& format>
  void create(int row) {
    IRONBENCH_MPI_CHECK(MPI_Op_create(&reduce_16bit<format, reduce_op::sum>, 1, &ops16_[row][0]));
    IRONBENCH_MPI_CHECK(MPI_Op_create(&reduce_16bit<format, reduce_op::prod>, 1, &ops16_[row][1]));
    IRONBENCH_MPI_CHECK(MPI_Op_create(&reduce_16bit<format, reduce_op::max>, 1, &ops16_[row][2]));
    IRONBENCH_MPI_CHECK(MPI_Op_create(&reduce_16bit<format, reduce_op::min>, 1, &ops16_[row][3]));
  }

  MPI_Op mpi_op(reduce_op op, element_type type) const {
    const int column = op == reduce_op::prod ? 1 : op == reduce_op::max ? 2 : op == reduce_op::min ? 3 : 0;
    if (type == element_type::fp16) return ops16_[0][column];
    if (type == element_type::bf16) return ops16_[1][column];
    switch (op) {
      case reduce_op::sum:
      case reduce_op::avg: return MPI_SUM;
      case reduce_op::prod: return MPI_PROD;
      case reduce_op::max: return MPI_MAX;
      case reduce_op::min: return MPI_MIN;
    }
    return MPI_SUM;
  }

  // avg = sum / ranks, element by element in the element type (integers truncate).
  void average(reduce_op op, element_type type, void* data, std::size_t elements) const {
    if (op != reduce_op::avg) return;
    const double n = world_->size();
    auto* bytes = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < elements; ++i) {
      switch (type) {
        case element_type::int8:
          reinterpret_cast<std::int8_t*>(bytes)[i] =
              static_cast<std::int8_t>(reinterpret_cast<std::int8_t*>(bytes)[i] / static_cast<int>(n));
          break;
        case element_type::int32: reinterpret_cast<std::int32_t*>(bytes)[i] /= static_cast<std::int32_t>(n); break;
        case element_type::fp32:
          reinterpret_cast<float*>(bytes)[i] = static_cast<float>(reinterpret_cast<float*>(bytes)[i] / n);
          break;
        case element_type::fp64: reinterpret_cast<double*>(bytes)[i] /= n; break;
        case element_type::fp16:
        case element_type::bf16: {
          const auto& format = type == element_type::fp16 ? blas::fp16_format : blas::bf16_format;
          auto* v = reinterpret_cast<std::uint16_t*>(bytes) + i;
          *v = static_cast<std::uint16_t>(
              blas::encode_small_float(static_cast<float>(blas::decode_small_float(*v, format) / n), format));
          break;
        }
      }
    }
  }

  void copy(void* to, const void* from, std::size_t bytes) const {
    if (device_) {
      device_->copy(to, from, bytes);
    } else {
      std::memcpy(to, from, bytes);
    }
  }

  std::shared_ptr<bootstrap> world_;
  std::optional<mpi_device_memory> device_;
  // alltoallv's counts and displacements, kept between calls.
  std::vector<int> send_counts_, send_displacements_, recv_counts_, recv_displacements_;
  MPI_Op ops16_[2][4] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                         {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};
};

}  // namespace

std::shared_ptr<bootstrap> mpi_world() {
  static const auto world = std::make_shared<mpi_session>();
  return world;
}

std::unique_ptr<collective_backend> mpi_host_backend(std::shared_ptr<bootstrap> world) {
  return std::make_unique<mpi_backend>(std::move(world));
}

std::unique_ptr<collective_backend> mpi_device_backend(std::shared_ptr<bootstrap> world, mpi_device_memory memory) {
  return std::make_unique<mpi_backend>(std::move(world), std::move(memory));
}

std::optional<bool> mpi_gpu_aware(const std::string& vendor, std::string& why) {
  // The first query this MPI has for `vendor` answers; `supported` is its result.
  [[maybe_unused]] const auto answer = [&](const char* query, int supported) {
    why = fmt::format("{} = {}", query, supported);
    return std::optional<bool>(supported != 0);
  };
  [[maybe_unused]] int supported = 0;
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  if (vendor == "cuda") return answer("Open MPI's MPIX_Query_cuda_support()", MPIX_Query_cuda_support());
#endif
#if defined(OMPI_HAVE_MPI_EXT_ROCM) && OMPI_HAVE_MPI_EXT_ROCM
  if (vendor == "hip") return answer("Open MPI's MPIX_Query_rocm_support()", MPIX_Query_rocm_support());
#endif
#if defined(MPIX_GPU_SUPPORT_CUDA)
  if (vendor == "cuda" && MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS) {
    return answer("MPICH's MPIX_GPU_query_support(CUDA)", supported);
  }
#endif
#if defined(MPIX_GPU_SUPPORT_HIP)
  if (vendor == "hip" && MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &supported) == MPI_SUCCESS) {
    return answer("MPICH's MPIX_GPU_query_support(HIP)", supported);
  }
#endif
  why = fmt::format("this MPI cannot say whether it takes {} device pointers", vendor);
  return std::nullopt;
}

}  // namespace ironbench::comm

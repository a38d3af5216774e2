#include "comm/mpi/mpi_peer_exchange.hpp"

#include <mpi.h>

#include <fmt/format.h>

#include <climits>

#include "core/error.hpp"

namespace ironbench::comm {
namespace {

constexpr int peer_tag = 7301;

int peer_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) throw error(fmt::format("{} bytes exceed MPI's 32-bit counts", bytes));
  return static_cast<int>(bytes);
}

void check_peer_call(int code, const char* what, int peer) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw error(fmt::format("{} with rank {}: {}", what, peer, std::string(text, static_cast<std::size_t>(length))));
}

class mpi_peers final : public peer_exchange {
 public:
  void send_receive(int peer, const void* send, void* receive, std::size_t bytes) override {
    check_peer_call(MPI_Sendrecv(send, peer_count(bytes), MPI_BYTE, peer, peer_tag, receive, peer_count(bytes),
                                 MPI_BYTE, peer, peer_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Sendrecv", peer);
  }
  void send(int peer, const void* data, std::size_t bytes) override {
    check_peer_call(MPI_Send(data, peer_count(bytes), MPI_BYTE, peer, peer_tag, MPI_COMM_WORLD), "MPI_Send", peer);
  }
  void receive(int peer, void* data, std::size_t bytes) override {
    MPI_Status status;
    check_peer_call(MPI_Recv(data, peer_count(bytes), MPI_BYTE, peer, peer_tag, MPI_COMM_WORLD, &status), "MPI_Recv",
                    peer);
    int received = 0;
    MPI_Get_count(&status, MPI_BYTE, &received);
    if (received != peer_count(bytes)) {
      throw error(fmt::format("MPI_Recv from rank {}: {} bytes arrived, {} expected", peer, received, bytes));
    }
  }
};

}  // namespace

std::unique_ptr<peer_exchange> mpi_peer_exchange() { return std::make_unique<mpi_peers>(); }

}  // namespace ironbench::comm

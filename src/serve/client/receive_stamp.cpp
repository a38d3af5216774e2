#include "serve/client/receive_stamp.hpp"

#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cstring>

namespace ironbench::serve {

bool enable_receive_stamps(int socket) {
  const int on = 1;
  return setsockopt(socket, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
}

std::optional<double> receive_age_s(int socket) {
  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  // MSG_TRUNC: TCP skips the copy; the stamp comes all the same.
  if (recvmsg(socket, &message, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT) <= 0) return std::nullopt;
  for (cmsghdr* h = CMSG_FIRSTHDR(&message); h != nullptr; h = CMSG_NXTHDR(&message, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec stamp{};
    std::memcpy(&stamp, CMSG_DATA(h), sizeof stamp);
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);  // the stamps' clock
    const double age =
        static_cast<double>(now.tv_sec - stamp.tv_sec) + static_cast<double>(now.tv_nsec - stamp.tv_nsec) * 1e-9;
    return std::max(0.0, age);
  }
  return std::nullopt;
}

}  // namespace ironbench::serve

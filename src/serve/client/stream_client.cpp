#include "serve/client/stream_client.hpp"

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "serve/client/receive_stamp.hpp"

namespace ironbench::serve {
namespace {

// libcurl's socket option callback: kernel receive stamps on every connection it opens.
int stamp_connections(void*, curl_socket_t socket, curlsocktype purpose) {
  if (purpose == CURLSOCKTYPE_IPCXN) (void)enable_receive_stamps(socket);
  return CURL_SOCKOPT_OK;
}

}  // namespace

struct stream_client::impl {
  struct transfer {
    impl* owner = nullptr;
    CURL* easy = nullptr;
    curl_socket_t socket = CURL_SOCKET_BAD;  // the connection's, as libcurl last announced it
    curl_slist* headers = nullptr;
    std::string body;
    data_callback on_data;
    done_callback on_done;
    char error_buffer[CURL_ERROR_SIZE] = {};
    double stall_timeout_s = 0;  // 0: none
    double last_byte_s = 0;      // when the transfer started or last received bytes
  };

  // The socket libcurl is being called for, and when its newest bytes arrived (client clock;
  // negative: no kernel stamp). Bytes of other sockets read in the same call get now().
  int dispatch_socket = -1;
  double dispatch_arrived_s = -1;
  bool kernel_stamps = true;
  stamp_counts stamps;

  CURLM* multi = nullptr;
  std::vector<CURL*> idle_handles;  // finished transfers' handles, reset for the next ones
  int epoll_fd = -1;
  int timer_fd = -1;               // wakes the loop at run_until's deadline with microsecond precision
  double curl_deadline_s = -1;     // when libcurl wants to be called for its timers (-1: never)
  double next_stall_check_s = -1;  // -1: no transfer has a stall timeout
  std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
  std::map<CURL*, std::unique_ptr<transfer>> transfers;

  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count(); }

  static int on_socket(CURL* easy, curl_socket_t socket, int what, void* self, void*) {
    auto* s = static_cast<impl*>(self);
    char* owner = nullptr;  // CURLOPT_PRIVATE: the transfer
    if (what != CURL_POLL_REMOVE && curl_easy_getinfo(easy, CURLINFO_PRIVATE, &owner) == CURLE_OK && owner != nullptr) {
      reinterpret_cast<transfer*>(owner)->socket = socket;
    }
    epoll_event ev{};
    ev.data.fd = socket;
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(s->epoll_fd, EPOLL_CTL_DEL, socket, nullptr);
      return 0;
    }
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    if (epoll_ctl(s->epoll_fd, EPOLL_CTL_MOD, socket, &ev) != 0) epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, socket, &ev);
    return 0;
  }

  static int on_timer(CURLM*, long ms, void* self) {
    auto* s = static_cast<impl*>(self);
    s->curl_deadline_s = ms < 0 ? -1 : s->now() + static_cast<double>(ms) * 1e-3;
    return 0;
  }

  // Calls libcurl for its timers (connect and whole-request timeouts) once they are due.
  void service_curl_timer() {
    if (curl_deadline_s < 0 || now() < curl_deadline_s) return;
    curl_deadline_s = -1;
    int running = 0;
    curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
  }

  // When the bytes libcurl hands over for `t` arrived. (A call for one socket also runs the
  // transfers whose timers are due: their bytes are not the stamped ones.)
  double arrival_of(const transfer& t) {
    const double now_s = now();
    ++stamps.deliveries;
    if (dispatch_arrived_s < 0 || t.socket != dispatch_socket) return now_s;
    ++stamps.kernel_stamped;
    return std::min(dispatch_arrived_s, now_s);
  }

  static size_t on_write(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<transfer*>(user);
    const double arrived_s = t->owner->arrival_of(*t);
    t->last_byte_s = arrived_s;
    if (!t->on_data(std::string_view(data, size * count), arrived_s)) return 0;  // CURLE_WRITE_ERROR
    return size * count;
  }

  // Removes a transfer from libcurl and hands its result to its callback.
  void end_transfer(std::map<CURL*, std::unique_ptr<transfer>>::iterator it, const transfer_result& result) {
    CURL* easy = it->first;
    auto owned = std::move(it->second);
    transfers.erase(it);
    curl_multi_remove_handle(multi, easy);
    recycle(easy);
    curl_slist_free_all(owned->headers);
    owned->on_done(result);
  }

  // Ends the transfers that received nothing for their stall timeout. (libcurl's low-speed
  // limit would do it with a timer per transfer that fires every second: at a thousand
  // streams started together, a thousand of them at once, long enough to hold up the tokens
  // of the next step.) Checked four times a second; returns how many ended.
  std::size_t end_stalled() {
    if (next_stall_check_s < 0 || now() < next_stall_check_s) return 0;
    const double now_s = now();
    next_stall_check_s = -1;
    std::vector<CURL*> stalled;
    for (const auto& [easy, t] : transfers) {
      if (t->stall_timeout_s <= 0) continue;
      if (now_s - t->last_byte_s >= t->stall_timeout_s)
        stalled.push_back(easy);
      else
        next_stall_check_s = now_s + stall_check_interval_s;
    }
    for (CURL* easy : stalled) {
      const auto it = transfers.find(easy);
      transfer_result result;
      result.end_s = now_s;
      result.error_class = "stalled";
      result.error = fmt::format("nothing received for {:g} s", it->second->stall_timeout_s);
      end_transfer(it, result);
    }
    return stalled.size();
  }

  // How long epoll may wait: until libcurl's timer or the next stall check (-1: no limit).
  int wait_ms() const {
    double until = -1;
    for (const double deadline : {curl_deadline_s, next_stall_check_s}) {
      if (deadline >= 0 && (until < 0 || deadline < until)) until = deadline;
    }
    return until < 0 ? -1 : static_cast<int>(std::max(0.0, std::ceil((until - now()) * 1e3)));
  }

  static constexpr double stall_check_interval_s = 0.25;

  // Calls libcurl for a ready socket, first taking the kernel's stamp of its bytes.
  void dispatch(int socket, int mask, int* running) {
    dispatch_socket = socket;
    dispatch_arrived_s = -1;
    if (kernel_stamps && (mask & CURL_CSELECT_IN)) {
      if (const auto age = receive_age_s(socket)) dispatch_arrived_s = now() - *age;
    }
    curl_multi_socket_action(multi, socket, mask, running);
    dispatch_socket = -1;
    dispatch_arrived_s = -1;
  }

  // Keeps a finished handle for the next transfer: creating one per request (and freeing its
  // buffers) cost more than the request itself at a thousand streams.
  void recycle(CURL* easy) {
    curl_easy_reset(easy);
    idle_handles.push_back(easy);
  }

  CURL* fresh_handle() {
    if (idle_handles.empty()) return curl_easy_init();
    CURL* easy = idle_handles.back();
    idle_handles.pop_back();
    return easy;
  }

  // Hands finished transfers to their callbacks; returns how many there were.
  std::size_t finish_completed() {
    std::size_t finished = 0;
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL* easy = message->easy_handle;
      const auto it = transfers.find(easy);
      if (it == transfers.end()) continue;
      transfer_result result;
      result.end_s = now();
      const CURLcode code = message->data.result;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result.http_status);
      const char* content_type = nullptr;
      if (curl_easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &content_type) == CURLE_OK && content_type != nullptr) {
        result.content_type = content_type;
      }
      result.transport_ok = code == CURLE_OK;
      if (!result.transport_ok) {
        result.error = it->second->error_buffer[0] != '\0' ? it->second->error_buffer : curl_easy_strerror(code);
        switch (code) {
          case CURLE_COULDNT_CONNECT:
          case CURLE_COULDNT_RESOLVE_HOST:
          case CURLE_SSL_CONNECT_ERROR: result.error_class = "connect"; break;
          case CURLE_PEER_FAILED_VERIFICATION:
          case CURLE_SSL_CACERT_BADFILE:
          case CURLE_SSL_CERTPROBLEM: result.error_class = "tls"; break;
          case CURLE_OPERATION_TIMEDOUT: result.error_class = "timeout"; break;
          case CURLE_PARTIAL_FILE:
          case CURLE_RECV_ERROR:
          case CURLE_GOT_NOTHING: result.error_class = "truncated"; break;
          case CURLE_WRITE_ERROR: result.error_class = "aborted"; break;
          default: result.error_class = "transport";
        }
      }
      end_transfer(it, result);
      ++finished;
    }
    return finished;
  }

  // Handles what is ready (waiting at most `wait` ms for it); true when run_until's deadline
  // passed or a transfer ended.
  bool handle_events(int wait) {
    constexpr int max_events = 1024;
    epoll_event events[max_events];
    int running = 0;
    const int ready = epoll_wait(epoll_fd, events, max_events, wait);
    bool deadline_passed = false;
    for (int i = 0; i < ready; ++i) {
      if (events[i].data.fd == timer_fd) {
        std::uint64_t expirations = 0;
        (void)!read(timer_fd, &expirations, sizeof expirations);
        deadline_passed = true;
        continue;
      }
      int mask = 0;
      if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
      if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
      if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
      dispatch(events[i].data.fd, mask, &running);
    }
    service_curl_timer();
    const std::size_t ended = finish_completed() + end_stalled();
    return deadline_passed || ended > 0;
  }
};

stream_client::stream_client(bool kernel_receive_stamps) : impl_(std::make_unique<impl>()) {
  impl_->kernel_stamps = kernel_receive_stamps;
  static const bool initialised = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }();
  if (!initialised) throw error("libcurl failed to initialise");
  impl_->multi = curl_multi_init();
  impl_->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl_->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (impl_->multi == nullptr || impl_->epoll_fd < 0 || impl_->timer_fd < 0) {
    throw error("cannot create the client's event loop");
  }
  epoll_event timer_event{};
  timer_event.events = EPOLLIN;
  timer_event.data.fd = impl_->timer_fd;
  epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, impl_->timer_fd, &timer_event);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETFUNCTION, &impl::on_socket);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETDATA, impl_.get());
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERFUNCTION, &impl::on_timer);
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERDATA, impl_.get());
  curl_multi_setopt(impl_->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
  curl_multi_setopt(impl_->multi, CURLMOPT_MAXCONNECTS, 100000L);
}

stream_client::~stream_client() {
  for (auto& [easy, t] : impl_->transfers) {
    curl_multi_remove_handle(impl_->multi, easy);
    curl_easy_cleanup(easy);
    curl_slist_free_all(t->headers);
  }
  for (CURL* easy : impl_->idle_handles) curl_easy_cleanup(easy);
  curl_multi_cleanup(impl_->multi);
  close(impl_->timer_fd);
  close(impl_->epoll_fd);
}

double stream_client::now() const { return impl_->now(); }

double stream_client::monotonic_ns(double client_s) const {
  return static_cast<double>(
             std::chrono::duration_cast<std::chrono::nanoseconds>(impl_->origin.time_since_epoch()).count()) +
         client_s * 1e9;
}

stream_client::stamp_counts stream_client::receive_stamps() const { return impl_->stamps; }

std::size_t stream_client::in_flight() const { return impl_->transfers.size(); }

void stream_client::start(const http_request& request, data_callback on_data, done_callback on_done) {
  auto t = std::make_unique<impl::transfer>();
  t->easy = impl_->fresh_handle();
  if (t->easy == nullptr) throw error("curl_easy_init failed");
  t->body = request.body;
  t->owner = impl_.get();
  t->on_data = std::move(on_data);
  t->on_done = std::move(on_done);
  for (const auto& h : request.headers) t->headers = curl_slist_append(t->headers, h.c_str());
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
  if (!t->body.empty()) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &impl::on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_PRIVATE, t.get());
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error_buffer);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  if (impl_->kernel_stamps) curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, &stamp_connections);
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "identity");
  if (!request.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, request.ca_file.c_str());
  if (!request.verify_tls) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (request.timeout_s > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1e3));
  t->stall_timeout_s = request.stall_timeout_s;
  t->last_byte_s = impl_->now();
  if (t->stall_timeout_s > 0 && impl_->next_stall_check_s < 0) {
    impl_->next_stall_check_s = t->last_byte_s + impl::stall_check_interval_s;
  }
  impl_->transfers.emplace(e, std::move(t));
  const auto code = curl_multi_add_handle(impl_->multi, e);
  if (code != CURLM_OK) throw error(fmt::format("curl_multi_add_handle: {}", curl_multi_strerror(code)));
}

void stream_client::run_until(double until_s, bool return_when_idle) {
  // The deadline as an absolute CLOCK_MONOTONIC time on the timerfd (steady_clock is
  // CLOCK_MONOTONIC on Linux): epoll_wait's millisecond timeout alone would make sends up to
  // 1 ms late.
  const auto deadline = impl_->origin + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                            std::chrono::duration<double>(until_s));
  const auto since_epoch = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  itimerspec at{};
  at.it_value.tv_sec = static_cast<time_t>(since_epoch / 1000000000);
  at.it_value.tv_nsec = static_cast<long>(since_epoch % 1000000000);
  if (at.it_value.tv_sec == 0 && at.it_value.tv_nsec == 0) at.it_value.tv_nsec = 1;
  timerfd_settime(impl_->timer_fd, TFD_TIMER_ABSTIME, &at, nullptr);
  while (true) {
    if (return_when_idle && impl_->transfers.empty()) return;
    if (impl_->now() >= until_s) return;
    if (impl_->handle_events(impl_->wait_ms())) return;
  }
}

void stream_client::cancel_all() {
  while (!impl_->transfers.empty()) {
    transfer_result result;
    result.end_s = impl_->now();
    result.error = "cancelled";
    result.error_class = "cancelled";
    impl_->end_transfer(impl_->transfers.begin(), result);
  }
}

}  // namespace ironbench::serve

#include "serve/stream_client.hpp"

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

namespace ironbench::serve {

struct stream_client::impl {
  struct transfer {
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string body;
    std::function<void(std::string_view)> on_data;  // stamps arrival and calls the user's callback
    done_callback on_done;
    char error_buffer[CURL_ERROR_SIZE] = {};
  };

  CURLM* multi = nullptr;
  int epoll_fd = -1;
  int timer_fd = -1;  // wakes the loop at run_until's deadline with microsecond precision
  double curl_deadline_s = -1;  // when libcurl wants to be called for its timers (-1: never)
  std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
  std::map<CURL*, std::unique_ptr<transfer>> transfers;

  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count(); }

  static int on_socket(CURL*, curl_socket_t socket, int what, void* self, void*) {
    auto* s = static_cast<impl*>(self);
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

  // Calls libcurl for its timers (timeouts, low-speed checks) once they are due.
  void service_curl_timer() {
    if (curl_deadline_s < 0 || now() < curl_deadline_s) return;
    curl_deadline_s = -1;
    int running = 0;
    curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
  }

  static size_t on_write(char* data, size_t size, size_t count, void* user) {
    static_cast<transfer*>(user)->on_data(std::string_view(data, size * count));
    return size * count;
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
      result.transport_ok = code == CURLE_OK;
      if (!result.transport_ok) {
        result.error = it->second->error_buffer[0] != '\0' ? it->second->error_buffer : curl_easy_strerror(code);
        switch (code) {
          case CURLE_COULDNT_CONNECT:
          case CURLE_COULDNT_RESOLVE_HOST:
          case CURLE_SSL_CONNECT_ERROR: result.error_class = "connect"; break;
          case CURLE_OPERATION_TIMEDOUT:
            result.error_class = result.error.find("too slow") != std::string::npos ? "stalled" : "timeout";
            break;
          case CURLE_PARTIAL_FILE:
          case CURLE_RECV_ERROR:
          case CURLE_GOT_NOTHING: result.error_class = "truncated"; break;
          default: result.error_class = "transport";
        }
      }
      auto owned = std::move(it->second);
      transfers.erase(it);
      curl_multi_remove_handle(multi, easy);
      curl_easy_cleanup(easy);
      curl_slist_free_all(owned->headers);
      owned->on_done(result);
      ++finished;
    }
    return finished;
  }
};

stream_client::stream_client() : impl_(std::make_unique<impl>()) {
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
  curl_multi_cleanup(impl_->multi);
  close(impl_->timer_fd);
  close(impl_->epoll_fd);
}

double stream_client::now() const { return impl_->now(); }

std::size_t stream_client::in_flight() const { return impl_->transfers.size(); }

void stream_client::start(const http_request& request, data_callback on_data, done_callback on_done) {
  auto t = std::make_unique<impl::transfer>();
  t->easy = curl_easy_init();
  if (t->easy == nullptr) throw error("curl_easy_init failed");
  t->body = request.body;
  auto* self = impl_.get();
  t->on_data = [self, on_data = std::move(on_data)](std::string_view bytes) { on_data(bytes, self->now()); };
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
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error_buffer);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "identity");
  if (request.timeout_s > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1e3));
  if (request.stall_timeout_s > 0) {
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(std::ceil(request.stall_timeout_s))));
  }
  impl_->transfers.emplace(e, std::move(t));
  const auto code = curl_multi_add_handle(impl_->multi, e);
  if (code != CURLM_OK) throw error(fmt::format("curl_multi_add_handle: {}", curl_multi_strerror(code)));
}

void stream_client::run_until(double until_s, bool return_when_idle) {
  constexpr int max_events = 1024;
  epoll_event events[max_events];
  int running = 0;
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
    int wait_ms = -1;
    if (impl_->curl_deadline_s >= 0) {
      wait_ms = static_cast<int>(std::max(0.0, std::ceil((impl_->curl_deadline_s - impl_->now()) * 1e3)));
    }
    const int ready = epoll_wait(impl_->epoll_fd, events, max_events, wait_ms);
    bool deadline_passed = false;
    if (ready > 0) {
      for (int i = 0; i < ready; ++i) {
        if (events[i].data.fd == impl_->timer_fd) {
          std::uint64_t expirations = 0;
          (void)!read(impl_->timer_fd, &expirations, sizeof expirations);
          deadline_passed = true;
          continue;
        }
        int mask = 0;
        if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
        curl_multi_socket_action(impl_->multi, events[i].data.fd, mask, &running);
      }
    }
    impl_->service_curl_timer();
    const bool finished = impl_->finish_completed() > 0;
    if (deadline_passed || finished) return;
  }
}

void stream_client::cancel_all() {
  while (!impl_->transfers.empty()) {
    auto it = impl_->transfers.begin();
    CURL* easy = it->first;
    auto owned = std::move(it->second);
    impl_->transfers.erase(it);
    curl_multi_remove_handle(impl_->multi, easy);
    curl_easy_cleanup(easy);
    curl_slist_free_all(owned->headers);
    transfer_result result;
    result.end_s = impl_->now();
    result.error = "cancelled";
    result.error_class = "cancelled";
    owned->on_done(result);
  }
}

}  // namespace ironbench::serve

#include "serve/sim/sim_http_server.hpp"

#include <event2/bufferevent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/json_text.hpp"

namespace ironbench::serve {

std::int64_t sim_monotonic_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

sim_http_server::sim_http_server(const sim_server_settings& s)
    : settings_(s), json_model_(core::json_text(json(s.model))), engine_(s.engine), prefix_cache_(s.prefix_cache) {
  // First, so that a log that cannot be written leaves nothing of libevent's behind.
  if (!s.request_log.empty()) {
    request_log_.open(s.request_log);
    if (!request_log_) throw error(fmt::format("serve-sim: cannot write the request log {}", s.request_log));
  }
  if (!s.state_log.empty()) {
    state_log_.open(s.state_log);
    if (!state_log_) throw error(fmt::format("serve-sim: cannot write the state log {}", s.state_log));
    log_state();
  }
  event_config* config = event_config_new();
  event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER);
  base_ = event_base_new_with_config(config);
  event_config_free(config);
  if (base_ == nullptr) throw error("serve-sim: cannot create the event loop");
  http_ = evhttp_new(base_);
  evhttp_set_allowed_methods(http_, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
  evhttp_set_gencb(http_, &sim_http_server::on_request, this);
  evhttp_set_bevcb(http_, &sim_http_server::on_accepted, this);
  if (s.max_body_bytes > 0) evhttp_set_max_body_size(http_, static_cast<ev_ssize_t>(s.max_body_bytes));
  evhttp_set_max_headers_size(http_, max_headers_bytes);
  if (s.idle_timeout_s > 0) {
    idle_timeout_ = to_timeval(s.idle_timeout_s);
    evhttp_set_timeout_tv(http_, &idle_timeout_);
  }
  accept_timer_ = evtimer_new(base_, &sim_http_server::on_accept_resume, this);
  step_timer_ = evtimer_new(base_, &sim_http_server::on_step, this);
  stop_timer_ = event_new(base_, -1, EV_PERSIST, &sim_http_server::on_stop_check, this);
}

sim_http_server::~sim_http_server() {
  if (listener_ != nullptr) {
    const std::lock_guard lock(listening_mutex());
    listening().erase(listener_);
  }
  event_free(accept_timer_);
  event_free(stop_timer_);
  event_free(step_timer_);
  evhttp_free(http_);
  event_base_free(base_);
}

void sim_http_server::run(const std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  auto* bound = evhttp_bind_socket_with_handle(http_, settings_.host.c_str(), static_cast<ev_uint16_t>(settings_.port));
  if (bound == nullptr) {
    throw error(fmt::format("serve-sim: cannot listen on {}:{} (in use, or not an address of this host)",
                            settings_.host, settings_.port));
  }
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  getsockname(evhttp_bound_socket_get_fd(bound), reinterpret_cast<sockaddr*>(&address), &length);
  const int port = address.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port)
                                                 : ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  listener_ = evhttp_bound_socket_get_listener(bound);
  {
    const std::lock_guard lock(listening_mutex());
    listening()[listener_] = this;
  }
  evconnlistener_set_error_cb(listener_, &sim_http_server::on_accept_error);
  stop_ = &stop;
  timeval period{0, 50000};
  event_add(stop_timer_, &period);
  if (on_listening) on_listening(port);
  event_base_dispatch(base_);
}

timeval sim_http_server::to_timeval(double seconds) {
  const auto micros = static_cast<long long>(seconds * 1e6);
  return {static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
}

// accept() failed for a reason libevent does not retry (EMFILE, ENFILE, ENOBUFS, ENOMEM):
// the listening socket stays readable, so accepting again at once would spin. Accepting
// pauses for 100 ms instead (the pending connections wait in the backlog), with one line on
// stderr for the whole shortage: the next accepted connection ends it.
void sim_http_server::on_accept_error(evconnlistener* listener, void*) {
  auto* s = server_of(listener);
  if (s == nullptr) return;
  const int code = EVUTIL_SOCKET_ERROR();
  evconnlistener_disable(listener);
  if (!s->accept_failing_) {
    s->accept_failing_ = true;
    std::fprintf(stderr, "serve-sim: accept() failed (%s): new connections wait, accepting again every 100 ms\n",
                 std::strerror(code));
    std::fflush(stderr);
  }
  timeval pause{0, 100000};
  evtimer_add(s->accept_timer_, &pause);
}

// The server listening with `listener` (whose callback argument is evhttp's, not ours).
std::map<evconnlistener*, sim_http_server*>& sim_http_server::listening() {
  static std::map<evconnlistener*, sim_http_server*> servers;
  return servers;
}

sim_http_server* sim_http_server::server_of(evconnlistener* listener) {
  const std::lock_guard lock(listening_mutex());
  const auto it = listening().find(listener);
  return it == listening().end() ? nullptr : it->second;
}

std::mutex& sim_http_server::listening_mutex() {
  static std::mutex mutex;
  return mutex;
}

void sim_http_server::on_accept_resume(evutil_socket_t, short, void* self) {
  evconnlistener_enable(static_cast<sim_http_server*>(self)->listener_);
}

// Every accepted connection's buffer, made as evhttp makes it; a connection accepted ends a
// shortage of descriptors.
bufferevent* sim_http_server::on_accepted(event_base* base, void* self) {
  static_cast<sim_http_server*>(self)->accept_failing_ = false;
  return bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
}

// A connection whose request is being answered is not idle, however long its stream (or a
// stall) lasts: its timeouts are off until the answer's end, then idle again.
void sim_http_server::set_idle_timeout(evhttp_connection* connection, bool answering) const {
  if (connection == nullptr || !evutil_timerisset(&idle_timeout_)) return;
  if (auto* channel = evhttp_connection_get_bufferevent(connection)) {
    bufferevent_set_timeouts(channel, answering ? nullptr : &idle_timeout_, answering ? nullptr : &idle_timeout_);
  }
}

void sim_http_server::on_stop_check(evutil_socket_t, short, void* self) {
  auto* s = static_cast<sim_http_server*>(self);
  if (s->request_log_.is_open()) s->request_log_.flush();  // readable while it runs
  if (s->state_log_.is_open()) s->state_log_.flush();
  if (s->stop_->load()) event_base_loopbreak(s->base_);
}

void sim_http_server::on_close(evhttp_connection* connection, void* self) {
  auto* s = static_cast<sim_http_server*>(self);
  for (auto it = s->active_.begin(); it != s->active_.end(); ++it) {
    if (it->second.connection == connection) {
      s->engine_.cancel(it->first);
      s->log_state();
      s->log_request(it->first, it->second, "client closed");
      s->active_.erase(it);
      return;
    }
  }
}

void sim_http_server::on_request(evhttp_request* request, void* self) {
  static_cast<sim_http_server*>(self)->handle(request);
}

}  // namespace ironbench::serve

#include "experiment/http_probe.hpp"

#include <curl/curl.h>

#include <memory>

namespace ironbench::experiment {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

http_reply http_request(const std::string& url, const std::string& json_body, double timeout_s) {
  http_reply reply;
  const std::unique_ptr<CURL, void (*)(CURL*)> easy(curl_easy_init(), curl_easy_cleanup);
  if (!easy) {
    reply.error = "curl_easy_init failed";
    return reply;
  }
  char error[CURL_ERROR_SIZE] = {};
  curl_slist* headers = nullptr;
  curl_easy_setopt(easy.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  curl_easy_setopt(easy.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy.get(), CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
  curl_easy_setopt(easy.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, &reply.body);
  if (!json_body.empty()) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(easy.get(), CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy.get(), CURLOPT_POSTFIELDS, json_body.c_str());
  }
  const auto code = curl_easy_perform(easy.get());
  if (code == CURLE_OK) {
    curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &reply.status);
  } else {
    reply.error = error[0] != '\0' ? error : curl_easy_strerror(code);
  }
  curl_slist_free_all(headers);
  return reply;
}

}  // namespace ironbench::experiment

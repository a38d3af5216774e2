#include "serve/adapter_check.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "core/error.hpp"

namespace ironbench::serve {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  auto& body = *static_cast<std::string*>(out);
  if (body.size() > (std::size_t{4} << 20)) return 0;  // a model list is small: stop a runaway reply
  body.append(data, size * count);
  return size * count;
}

struct models_reply {
  long status = 0;
  std::string body, error;
};

models_reply get_models(const std::string& url, const load_settings& load) {
  models_reply reply;
  const std::unique_ptr<CURL, void (*)(CURL*)> easy(curl_easy_init(), curl_easy_cleanup);
  if (!easy) {
    reply.error = "curl_easy_init failed";
    return reply;
  }
  char error[CURL_ERROR_SIZE] = {};
  curl_slist* headers = nullptr;
  for (const auto& h : load.headers) headers = curl_slist_append(headers, h.c_str());
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &reply.body);
  if (headers != nullptr) curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  if (!load.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, load.ca_file.c_str());
  if (!load.verify_tls) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  const auto code = curl_easy_perform(e);
  if (code == CURLE_OK) {
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &reply.status);
  } else {
    reply.error = error[0] != '\0' ? error : curl_easy_strerror(code);
  }
  curl_slist_free_all(headers);
  return reply;
}

}  // namespace

std::optional<std::vector<std::string>> adapters_not_listed(const std::string& models_reply,
                                                            const lora_selection& selection) {
  const auto list = json::parse(models_reply, nullptr, false);
  if (list.is_discarded() || !list.is_object() || !list.contains("data") || !list.at("data").is_array()) {
    return std::nullopt;
  }
  std::vector<std::string> ids;
  for (const auto& model : list.at("data")) {
    if (model.is_object() && model.contains("id") && model.at("id").is_string()) ids.push_back(model.at("id"));
  }
  std::vector<std::string> missing;
  for (const auto& adapter : selection.adapters) {
    if (std::find(ids.begin(), ids.end(), adapter.name) == ids.end()) missing.push_back(adapter.name);
  }
  return missing;
}

std::string check_adapters_listed(const load_settings& load, const lora_selection& selection) {
  if (!selection.enabled()) return "";
  std::string unjudged;
  for (const auto& base : load.base_urls) {
    const auto url = base + "/v1/models";
    const auto reply = get_models(url, load);
    const auto missing = reply.status == 200 ? adapters_not_listed(reply.body, selection) : std::nullopt;
    if (!missing) {
      const auto why = !reply.error.empty()  ? reply.error
                       : reply.status != 200 ? fmt::format("HTTP {}", reply.status)
                                             : std::string("the reply is not a model list");
      unjudged += fmt::format("serve: GET {} gave no model list ({}); the adapters were not checked\n", url, why);
      continue;
    }
    if (missing->empty()) continue;
    const auto list = json::parse(reply.body);
    std::vector<std::string> listed;
    for (const auto& model : list.at("data"))
      if (model.is_object() && model.contains("id") && model.at("id").is_string()) listed.push_back(model.at("id"));
    throw error(
        fmt::format("the server at {} does not serve LoRA adapter{} {} (GET /v1/models lists: {}); start it with "
                    "the adapters (vLLM: --enable-lora --lora-modules NAME=PATH)",
                    base, missing->size() > 1 ? "s" : "", fmt::join(*missing, ", "),
                    listed.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(listed, ", "))));
  }
  return unjudged;
}

}  // namespace ironbench::serve

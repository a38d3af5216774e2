#include "serve/workload/adapter_check.hpp"

#include <curl/curl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "core/error.hpp"
#include "core/json_text.hpp"

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

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The adapters of a /lora-adapters list as "ID (PATH)" for an error line.
std::string adapters_listed(const json& list) {
  std::vector<std::string> items;
  for (const auto& a : list) {
    if (!a.is_object() || !a.contains("id")) continue;
    items.push_back(fmt::format("{} ({})", core::json_text(a.at("id")), a.value("path", std::string("?"))));
  }
  return items.empty() ? std::string("none") : fmt::format("{}", fmt::join(items, ", "));
}

// lora_field: every base URL's ids of the adapters, which must agree.
void resolve_lora_ids(const load_settings& load, lora_selection& selection) {
  std::vector<int> settled;
  for (const auto& base : load.base_urls) {
    const auto url = base + "/lora-adapters";
    const auto reply = get_models(url, load);
    const auto ids = reply.status == 200 ? adapter_ids(reply.body, selection) : std::nullopt;
    if (!ids) {
      const auto why = !reply.error.empty()  ? reply.error
                       : reply.status != 200 ? fmt::format("HTTP {}", reply.status)
                                             : std::string("the reply is not a list of adapters");
      throw error(
          fmt::format("GET {} gave no LoRA adapter list ({}): --lora-by lora-field needs llama.cpp's "
                      "llama-server started with --lora FILE.gguf",
                      url, why));
    }
    std::vector<std::string> missing;
    for (std::size_t i = 0; i < ids->size(); ++i)
      if ((*ids)[i] < 0) missing.push_back(selection.adapters[i].name);
    if (!missing.empty()) {
      throw error(fmt::format(
          "the server at {} has no LoRA adapter {} (GET /lora-adapters lists: {}); name an adapter by its id, path "
          "or file name, or start llama-server with --lora FILE.gguf",
          base, fmt::join(missing, ", "), adapters_listed(json::parse(reply.body))));
    }
    if (settled.empty()) {
      settled = *ids;
    } else if (settled != *ids) {
      throw error(
          fmt::format("the servers give the LoRA adapters different ids ({} lists them as {}, {} as {}): "
                      "start every replica with the same --lora files in the same order",
                      load.base_urls.front(), fmt::join(settled, ","), base, fmt::join(*ids, ",")));
    }
  }
  for (std::size_t i = 0; i < settled.size(); ++i) selection.adapters[i].server_id = settled[i];
}

// lora_route::automatic: the field when the first server lists adapters as llama.cpp's does.
lora_route detect_route(const load_settings& load, const lora_selection& selection) {
  if (load.base_urls.empty()) return lora_route::model_name;
  const auto reply = get_models(load.base_urls.front() + "/lora-adapters", load);
  return reply.status == 200 && adapter_ids(reply.body, selection) ? lora_route::lora_field : lora_route::model_name;
}

}  // namespace

std::optional<std::vector<int>> adapter_ids(const std::string& lora_adapters_reply, const lora_selection& selection) {
  const auto list = json::parse(lora_adapters_reply, nullptr, false);
  if (list.is_discarded() || !list.is_array()) return std::nullopt;
  for (const auto& a : list) {
    if (!a.is_object() || !a.contains("id") || !a.at("id").is_number_integer()) return std::nullopt;
  }
  std::vector<int> out;
  for (const auto& adapter : selection.adapters) {
    int found = -1;
    for (const auto& a : list) {
      const auto id = a.at("id").get<int>();
      const auto path = a.contains("path") && a.at("path").is_string() ? a.at("path").get<std::string>() : "";
      const auto file = file_name(path);
      const auto stem = file.ends_with(".gguf") ? file.substr(0, file.size() - 5) : file;
      const auto& name = adapter.name;
      if (name == std::to_string(id) || (!path.empty() && (name == path || name == file || name == stem))) {
        found = id;
        break;
      }
    }
    out.push_back(found);
  }
  return out;
}

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

std::string check_adapters_listed(const load_settings& load, lora_selection& selection) {
  if (!selection.enabled()) return "";
  if (selection.route == lora_route::automatic) selection.route = detect_route(load, selection);
  if (selection.route == lora_route::lora_field) {
    resolve_lora_ids(load, selection);
    return "";
  }
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
                    "the adapters (vLLM: --enable-lora --lora-modules NAME=PATH; llama.cpp's llama-server: --lora "
                    "FILE.gguf, with --lora-by lora-field)",
                    base, missing->size() > 1 ? "s" : "", fmt::join(*missing, ", "),
                    listed.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(listed, ", "))));
  }
  return unjudged;
}

}  // namespace ironbench::serve

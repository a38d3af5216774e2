#include "cli/serve_gpu_watch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>

#include "core/error.hpp"

namespace ironbench::cli {
namespace {

TEST(ServeGpuWatch, LoopbackAndThisHostsNamesAreThisNode) {
  EXPECT_TRUE(url_is_on_this_node("http://127.0.0.1:8000"));
  EXPECT_TRUE(url_is_on_this_node("http://localhost:8000/v1"));
  EXPECT_TRUE(url_is_on_this_node("https://[::1]:8443"));
  std::array<char, 256> name{};
  ASSERT_EQ(gethostname(name.data(), name.size() - 1), 0);
  EXPECT_TRUE(url_is_on_this_node(std::string("http://") + name.data() + ":8000"));
  EXPECT_FALSE(url_is_on_this_node("http://192.0.2.1:8000")) << "TEST-NET-1 is nobody's address";
  EXPECT_FALSE(url_is_on_this_node("http://gpu-node.example:8000"));
}

core::device_info gpu(const std::string& id) {
  core::device_info d;
  d.id = id;
  d.kind = core::device_kind::cuda;
  return d;
}

TEST(ServeGpuWatch, AutoWatchesOnlyWhenTheServerIsHere) {
  std::string note;
  EXPECT_FALSE(serve_gpu_watch("auto", {"http://127.0.0.1:8000"}, {}, note));
  EXPECT_EQ(note, "no GPU on this node");
  EXPECT_FALSE(serve_gpu_watch("auto", {"http://192.0.2.1:8000"}, {gpu("cuda:0")}, note));
  EXPECT_EQ(note,
            "off: http://192.0.2.1:8000 is not on this node (--gpu-telemetry on watches this node's GPUs anyway)");
  EXPECT_FALSE(serve_gpu_watch("off", {"http://127.0.0.1:8000"}, {gpu("cuda:0")}, note));
  const auto watch = serve_gpu_watch("on", {"http://192.0.2.1:8000"}, {gpu("cuda:0"), gpu("cuda:1")}, note);
  ASSERT_TRUE(watch);
  EXPECT_EQ(note, "cuda:0, cuda:1 every 100 ms");
  // Without a PCI bus id (or a library) each GPU says why it cannot be read, and is still listed.
  auto watched = watch();
  ASSERT_EQ(watched.size(), 2U);
  const auto seen = watched[0].monitor->finish();
  EXPECT_EQ(seen.summary.at("available"), false);
  EXPECT_THROW((void)serve_gpu_watch("sometimes", {}, {}, note), usage_error);
}

}  // namespace
}  // namespace ironbench::cli

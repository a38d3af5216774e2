/* A stand-in for librocm_smi64.so (ROCm 6 layout of rsmi_frequencies_t), loaded by the
   telemetry tests through IRONBENCH_ROCM_SMI_LIBRARY. Two GPUs; the second at 0000:c1:00.0. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint32_t major, minor, patch;
  const char* build;
} rsmi_version_t;
typedef struct {
  bool has_deep_sleep;
  uint32_t num_supported;
  uint32_t current;
  uint64_t frequency[33];
} rsmi_frequencies_t;

int rsmi_init(uint64_t flags) {
  (void)flags;
  return 0;
}
int rsmi_shut_down(void) { return 0; }
int rsmi_version_get(rsmi_version_t* v) {
  v->major = 7;
  v->minor = 4;
  v->patch = 0;
  v->build = "fake";
  return 0;
}
int rsmi_version_str_get(int component, char* out, uint32_t length) {
  (void)component;
  strncpy(out, "6.10.5", length);
  return 0;
}
int rsmi_num_monitor_devices(uint32_t* count) {
  *count = 2;
  return 0;
}
int rsmi_dev_pci_id_get(uint32_t index, uint64_t* bdfid) {
  /* domain 0, bus 0x0c or 0xc1, device 0, function 0; partition bits 28-31 set on the second */
  *bdfid = index == 0 ? (0x0cull << 8) : ((0xc1ull << 8) | (1ull << 28));
  return 0;
}
int rsmi_dev_busy_percent_get(uint32_t index, uint32_t* busy) {
  *busy = index == 1 ? 88 : 0;
  return 0;
}
int rsmi_dev_memory_usage_get(uint32_t index, int type, uint64_t* used) {
  (void)index;
  (void)type;
  *used = 2147483648ull;
  return 0;
}
int rsmi_dev_current_socket_power_get(uint32_t index, uint64_t* microwatts) {
  (void)index;
  *microwatts = 750000000ull;
  return 0;
}
int rsmi_dev_energy_count_get(uint32_t index, uint64_t* counter, float* resolution, uint64_t* timestamp) {
  (void)index;
  *counter = 1000000ull;
  *resolution = 15.3f;
  *timestamp = 1;
  return 0;
}
int rsmi_dev_gpu_clk_freq_get(uint32_t index, int type, rsmi_frequencies_t* f) {
  (void)index;
  memset(f, 0, sizeof *f);
  f->has_deep_sleep = true;
  f->num_supported = 3;
  f->current = 2;
  f->frequency[0] = 500000000ull;
  f->frequency[1] = 1500000000ull;
  f->frequency[2] = type == 4 ? 1300000000ull : 2100000000ull;
  return 0;
}
int rsmi_dev_temp_metric_get(uint32_t index, uint32_t sensor, int metric, int64_t* millidegrees) {
  (void)index;
  (void)metric;
  if (sensor != 1) return 2; /* only the junction sensor, as on MI300X */
  *millidegrees = 74000;
  return 0;
}
int rsmi_dev_compute_partition_get(uint32_t index, char* out, uint32_t length) {
  (void)index;
  strncpy(out, "CPX", length);
  return 0;
}
int rsmi_dev_memory_partition_get(uint32_t index, char* out, uint32_t length) {
  (void)index;
  strncpy(out, "NPS4", length);
  return 0;
}

/* RAS error counts: only the UMC block has ECC on; FAKE_RSMI_UMC_CE and FAKE_RSMI_UMC_UE set
   the counts, and *_STEP makes them rise by that much at every read (0 and flat by default).
   FAKE_RSMI_NO_ECC makes the query fail, as on a GPU without RAS. */
static uint64_t env_count(const char* name) {
  const char* text = getenv(name);
  return text != NULL && *text != '\0' ? strtoull(text, NULL, 10) : 0;
}
int rsmi_dev_ecc_enabled_get(uint32_t index, uint64_t* blocks) {
  (void)index;
  *blocks = 0x1; /* RSMI_GPU_BLOCK_UMC */
  return 0;
}
int rsmi_dev_ecc_count_get(uint32_t index, uint32_t block, uint64_t* counts) {
  static uint64_t reads[2] = {0, 0};
  if (getenv("FAKE_RSMI_NO_ECC") != NULL || block != 0x1 || index > 1) return 2;
  const uint64_t n = reads[index]++;
  counts[0] = env_count("FAKE_RSMI_UMC_CE") + env_count("FAKE_RSMI_UMC_CE_STEP") * n;
  counts[1] = env_count("FAKE_RSMI_UMC_UE") + env_count("FAKE_RSMI_UMC_UE_STEP") * n;
  return 0;
}

/* A stand-in for libnvidia-ml.so with fixed readings, loaded by the telemetry tests through
   IRONBENCH_NVML_LIBRARY to exercise the real dlopen and decoding paths. One GPU, at PCI bus
   id 0000:1B:00.0. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct fake_device* nvml_device;
typedef struct {
  unsigned int gpu, memory;
} nvml_utilization;
typedef struct {
  unsigned long long total, free, used;
} nvml_memory;

static struct fake_device {
  int unused;
} the_gpu;
static int initialised = 0;

int nvmlInit_v2(void) {
  initialised = 1;
  return 0;
}
int nvmlShutdown(void) {
  initialised = 0;
  return 0;
}
const char* nvmlErrorString(int status) { return status == 6 ? "Not Found" : "Unknown Error"; }
int nvmlSystemGetDriverVersion(char* out, unsigned length) {
  strncpy(out, "580.95.05", length);
  return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvml_device* device) {
  if (!initialised) return 1;
  if (strcasecmp(bus_id, "0000:1B:00.0") != 0 && strcasecmp(bus_id, "00000000:1B:00.0") != 0) return 6;
  *device = &the_gpu;
  return 0;
}
int nvmlDeviceGetUtilizationRates(nvml_device d, nvml_utilization* u) {
  (void)d;
  u->gpu = 97;
  u->memory = 40;
  return 0;
}
int nvmlDeviceGetMemoryInfo(nvml_device d, nvml_memory* m) {
  (void)d;
  m->total = 85899345920ull;
  m->used = 1073741824ull;
  m->free = m->total - m->used;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvml_device d, unsigned* milliwatts) {
  (void)d;
  *milliwatts = 700500;
  return 0;
}
/* nvmlFieldValue_t; only NVML_FI_DEV_POWER_INSTANT (186) is known, in milliwatts, unless
   FAKE_NVML_NO_INSTANT_POWER is set (as drivers before it). */
typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType, nvmlReturn;
  union {
    double dVal;
    unsigned int uiVal;
    unsigned long long ullVal;
  } value;
} nvml_field_value;
int nvmlDeviceGetFieldValues(nvml_device d, int count, nvml_field_value* values) {
  (void)d;
  for (int i = 0; i < count; ++i) {
    if (values[i].fieldId == 186 && getenv("FAKE_NVML_NO_INSTANT_POWER") == NULL) {
      values[i].valueType = 1;
      values[i].nvmlReturn = 0;
      values[i].value.uiVal = 688250;
    } else {
      values[i].nvmlReturn = 3; /* NVML_ERROR_NOT_SUPPORTED */
    }
  }
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(nvml_device d, unsigned long long* millijoules) {
  static unsigned long long counter = 12345678ull;
  (void)d;
  counter += 1000;
  *millijoules = counter;
  return 0;
}
int nvmlDeviceGetClockInfo(nvml_device d, int type, unsigned* mhz) {
  (void)d;
  *mhz = type == 1 ? 1980 : 2619;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(nvml_device d, int type, unsigned* mhz) {
  (void)d;
  *mhz = type == 1 ? 1980 : 2619;
  return 0;
}
int nvmlDeviceGetTemperature(nvml_device d, int sensor, unsigned* celsius) {
  (void)d;
  (void)sensor;
  *celsius = 61;
  return 0;
}
int nvmlDeviceGetCurrentClocksThrottleReasons(nvml_device d, unsigned long long* reasons) {
  (void)d;
  *reasons = 0x4ull | 0x40ull;
  return 0;
}
int nvmlDeviceGetMigMode(nvml_device d, unsigned* current, unsigned* pending) {
  (void)d;
  *current = 1;
  *pending = 1;
  return 0;
}
int nvmlDeviceGetVirtualizationMode(nvml_device d, int* mode) {
  (void)d;
  *mode = 1;
  return 0;
}
int nvmlDeviceGetPowerManagementLimit(nvml_device d, unsigned* milliwatts) {
  (void)d;
  *milliwatts = 700000;
  return 0;
}

/* Health queries (ironbench doctor): healthy by default; FAKE_NVML_* variables make a fault. */
static unsigned long long env_number(const char* name, unsigned long long fallback) {
  const char* text = getenv(name);
  return text != NULL && *text != '\0' ? strtoull(text, NULL, 10) : fallback;
}
int nvmlDeviceGetPowerManagementDefaultLimit(nvml_device d, unsigned* milliwatts) {
  (void)d;
  *milliwatts = (unsigned)env_number("FAKE_NVML_DEFAULT_POWER_LIMIT_MW", 700000);
  return 0;
}
int nvmlDeviceGetPersistenceMode(nvml_device d, int* mode) {
  (void)d;
  *mode = (int)env_number("FAKE_NVML_PERSISTENCE", 1);
  return 0;
}
int nvmlDeviceGetTotalEccErrors(nvml_device d, int error_type, int counter_type, unsigned long long* count) {
  (void)d;
  *count = error_type == 1 && counter_type == 0 ? env_number("FAKE_NVML_ECC_UNCORRECTED", 0) : 0;
  return 0;
}
int nvmlDeviceGetRemappedRows(nvml_device d, unsigned* corrected, unsigned* uncorrected, unsigned* pending,
                              unsigned* failed) {
  (void)d;
  *corrected = 0;
  *uncorrected = 0;
  *pending = (unsigned)env_number("FAKE_NVML_ROWS_PENDING", 0);
  *failed = (unsigned)env_number("FAKE_NVML_REMAP_FAILED", 0);
  return 0;
}

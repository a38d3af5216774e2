/* A stand-in for libnvidia-ml.so with fixed readings, loaded by the telemetry tests through
   IRONBENCH_NVML_LIBRARY to exercise the real dlopen and decoding paths. One GPU, at PCI bus
   id 0000:1B:00.0. */
#include <stdio.h>
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
/* Counters that rise on demand: NAME + NAME_STEP x (the reads of it so far), so that a test sets
   FAKE_NVML_ECC_CORRECTED_STEP=1 and every later reading is higher than the one before. */
static unsigned long long rising(const char* name, unsigned long long* reads) {
  char step_name[96];
  snprintf(step_name, sizeof step_name, "%s_STEP", name);
  return env_number(name, 0) + env_number(step_name, 0) * (*reads)++;
}
int nvmlDeviceGetTotalEccErrors(nvml_device d, int error_type, int counter_type, unsigned long long* count) {
  static unsigned long long corrected_reads = 0, uncorrected_reads = 0;
  (void)d;
  if (counter_type != 0) {
    *count = 0;
  } else if (error_type == 1) {
    *count = rising("FAKE_NVML_ECC_UNCORRECTED", &uncorrected_reads);
  } else {
    *count = rising("FAKE_NVML_ECC_CORRECTED", &corrected_reads);
  }
  return 0;
}
int nvmlDeviceGetPcieReplayCounter(nvml_device d, unsigned* value) {
  static unsigned long long reads = 0;
  (void)d;
  *value = (unsigned)rising("FAKE_NVML_PCIE_REPLAYS", &reads);
  return 0;
}

/* XID events: FAKE_NVML_XIDS="79,13" are reported in turn by nvmlEventSetWait_v2, then a
   timeout, then again from the first (each drain of the set sees them all);
   FAKE_NVML_NO_EVENTS makes registering fail as on a GPU without event support. */
typedef struct {
  nvml_device device;
  unsigned long long eventType, eventData;
  unsigned gpuInstanceId, computeInstanceId;
} nvml_event_data;
static struct fake_event_set {
  int next;
} the_set;
int nvmlEventSetCreate(struct fake_event_set** set) {
  *set = &the_set;
  return 0;
}
int nvmlDeviceRegisterEvents(nvml_device d, unsigned long long types, struct fake_event_set* set) {
  (void)d;
  (void)set;
  if (getenv("FAKE_NVML_NO_EVENTS") != NULL) return 3; /* NVML_ERROR_NOT_SUPPORTED */
  return (types & 0x8ull) != 0 ? 0 : 2;
}
int nvmlEventSetWait_v2(struct fake_event_set* set, nvml_event_data* data, unsigned timeout_ms) {
  const char* list = getenv("FAKE_NVML_XIDS");
  const char* at = list;
  (void)timeout_ms;
  for (int i = 0; at != NULL && *at != '\0' && i < set->next; ++i) {
    at = strchr(at, ',');
    if (at != NULL) ++at;
  }
  if (at == NULL || *at == '\0') {
    set->next = 0;
    return 10; /* NVML_ERROR_TIMEOUT */
  }
  ++set->next;
  data->device = &the_gpu;
  data->eventType = 0x8ull;
  data->eventData = strtoull(at, NULL, 10);
  data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
  return 0;
}
int nvmlEventSetFree(struct fake_event_set* set) {
  set->next = 0;
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

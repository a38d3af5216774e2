/* A stand-in for libnvidia-ml.so, loaded through IRONBENCH_NVML_LIBRARY to exercise the real
   dlopen and decoding paths (the telemetry, doctor and validate tests).

   Its GPUs: one at PCI bus id 0000:1B:00.0, or those of FAKE_NVML_BUS_IDS ("00FF:00:00.0,
   00FF:01:00.0": the stand-in GPUs' ids, src/device/stand_in_gpus.hpp), at most 64; a bus id is
   matched by value (4- or 8-digit domain, any case).

   Its readings: fixed ones by default (1980 MHz, 688 W, clock reasons sw_power_cap and
   hw_thermal_slowdown). FAKE_NVML_PROFILE=h200-gemm reads as an NVIDIA H200 under dense GEMM
   did (docs/benchmarks.md, GPU section): power at its limit (694-700 W of 700 W), the SM clock
   moving over 1240-1700 MHz of its 1980 MHz maximum, held back by sw_power_cap alone; under a
   lowered limit the power sits at that limit and the clock falls in proportion.

   Faults: the FAKE_NVML_* variables below (power limits, ECC counts, PCIe replays, XIDs, row
   remapping, persistence). With FAKE_NVML_FAULTY_GPU=BUS_ID they apply to that GPU only and
   the others read healthy; without it, to every GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fake_device* nvml_device;
typedef struct {
  unsigned int gpu, memory;
} nvml_utilization;
typedef struct {
  unsigned long long total, free, used;
} nvml_memory;

enum { most_gpus = 64 };

/* One GPU: its bus id and how often each rising counter and sensor was read. */
static struct fake_device {
  unsigned domain, bus, slot, function;
  unsigned long long corrected_reads, uncorrected_reads, replay_reads, sensor_reads;
} gpus[most_gpus];
static int gpu_count = 0;
static int initialised = 0;

static int parse_bus_id(const char* text, struct fake_device* d) {
  char tail = 0;
  return sscanf(text, "%x:%x:%x.%x%c", &d->domain, &d->bus, &d->slot, &d->function, &tail) == 4;
}
static int same_bus_id(const struct fake_device* a, const struct fake_device* b) {
  return a->domain == b->domain && a->bus == b->bus && a->slot == b->slot && a->function == b->function;
}

static unsigned long long env_number(const char* name, unsigned long long fallback) {
  const char* text = getenv(name);
  return text != NULL && *text != '\0' ? strtoull(text, NULL, 10) : fallback;
}
/* Whether the fault variables apply to `d` (FAKE_NVML_FAULTY_GPU unset, or naming it). */
static int faulty(const struct fake_device* d) {
  const char* text = getenv("FAKE_NVML_FAULTY_GPU");
  struct fake_device wanted;
  if (text == NULL || *text == '\0') return 1;
  return parse_bus_id(text, &wanted) && same_bus_id(&wanted, d);
}
/* A fault variable of `d`: its value where the faults apply to `d`, else the healthy value. */
static unsigned long long knob(const struct fake_device* d, const char* name, unsigned long long healthy) {
  return faulty(d) ? env_number(name, healthy) : healthy;
}
static int h200_under_gemm(void) {
  const char* profile = getenv("FAKE_NVML_PROFILE");
  return profile != NULL && strcmp(profile, "h200-gemm") == 0;
}
/* The reading number of `d`'s sensors, counted across threads (each GPU has a sampler). */
static unsigned long long next_sensor_read(struct fake_device* d) {
  return __atomic_fetch_add(&d->sensor_reads, 1ull, __ATOMIC_RELAXED);
}

/* Reads the GPUs' bus ids; their read counts stay (a handle of an earlier init reads on). */
int nvmlInit_v2(void) {
  const char* list = getenv("FAKE_NVML_BUS_IDS");
  int count = 0;
  if (list == NULL || *list == '\0') list = "0000:1B:00.0";
  while (*list != '\0' && count < most_gpus) {
    char one[64];
    struct fake_device id;
    size_t length = strcspn(list, ",");
    if (length < sizeof one) {
      memcpy(one, list, length);
      one[length] = '\0';
      if (parse_bus_id(one, &id)) {
        gpus[count].domain = id.domain;
        gpus[count].bus = id.bus;
        gpus[count].slot = id.slot;
        gpus[count].function = id.function;
        ++count;
      }
    }
    list += length;
    if (*list == ',') ++list;
  }
  gpu_count = count;
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
  struct fake_device wanted;
  if (!initialised) return 1;
  if (!parse_bus_id(bus_id, &wanted)) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  for (int i = 0; i < gpu_count; ++i) {
    if (same_bus_id(&gpus[i], &wanted)) {
      *device = &gpus[i];
      return 0;
    }
  }
  return 6;
}

/* Power limits, in milliwatts: FAKE_NVML_POWER_LIMIT_MW and FAKE_NVML_DEFAULT_POWER_LIMIT_MW. */
static unsigned power_limit_mw(const struct fake_device* d) {
  return (unsigned)knob(d, "FAKE_NVML_POWER_LIMIT_MW", 700000);
}
static unsigned default_power_limit_mw(const struct fake_device* d) {
  return (unsigned)knob(d, "FAKE_NVML_DEFAULT_POWER_LIMIT_MW", 700000);
}
/* h200-gemm: the power of reading `n`, 0 to 6 W under the limit. */
static unsigned h200_power_mw(const struct fake_device* d, unsigned long long n) {
  return power_limit_mw(d) - (unsigned)(n % 7) * 1000u;
}

int nvmlDeviceGetUtilizationRates(nvml_device d, nvml_utilization* u) {
  u->gpu = h200_under_gemm() ? 100 : 97;
  u->memory = 40;
  (void)d;
  return 0;
}
int nvmlDeviceGetMemoryInfo(nvml_device d, nvml_memory* m) {
  (void)d;
  m->total = h200_under_gemm() ? 150754820096ull : 85899345920ull;
  m->used = 1073741824ull;
  m->free = m->total - m->used;
  return 0;
}
int nvmlDeviceGetPowerUsage(nvml_device d, unsigned* milliwatts) {
  *milliwatts = h200_under_gemm() ? h200_power_mw(d, next_sensor_read(d)) : 700500;
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
  for (int i = 0; i < count; ++i) {
    if (values[i].fieldId == 186 && getenv("FAKE_NVML_NO_INSTANT_POWER") == NULL) {
      values[i].valueType = 1;
      values[i].nvmlReturn = 0;
      values[i].value.uiVal = h200_under_gemm() ? h200_power_mw(d, next_sensor_read(d)) : 688250;
    } else {
      values[i].nvmlReturn = 3; /* NVML_ERROR_NOT_SUPPORTED */
    }
  }
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(nvml_device d, unsigned long long* millijoules) {
  static unsigned long long counter = 12345678ull;
  (void)d;
  *millijoules = __atomic_add_fetch(&counter, 1000ull, __ATOMIC_RELAXED);
  return 0;
}
int nvmlDeviceGetClockInfo(nvml_device d, int type, unsigned* mhz) {
  if (type == 1 && h200_under_gemm()) {
    /* 1240 to 1700 MHz, a different clock at each reading; under a lowered power limit, that
       times the limit over the default. */
    const unsigned at_default = 1240u + (unsigned)((next_sensor_read(d) * 173u) % 461u);
    *mhz = (unsigned)((unsigned long long)at_default * power_limit_mw(d) / default_power_limit_mw(d));
    return 0;
  }
  *mhz = type == 1 ? 1980 : h200_under_gemm() ? 3201 : 2619;
  return 0;
}
int nvmlDeviceGetMaxClockInfo(nvml_device d, int type, unsigned* mhz) {
  (void)d;
  *mhz = type == 1 ? 1980 : h200_under_gemm() ? 3201 : 2619;
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
  *reasons = h200_under_gemm() ? 0x4ull : 0x4ull | 0x40ull; /* sw_power_cap (, hw_thermal_slowdown) */
  return 0;
}
int nvmlDeviceGetMigMode(nvml_device d, unsigned* current, unsigned* pending) {
  (void)d;
  *current = h200_under_gemm() ? 0 : 1;
  *pending = *current;
  return 0;
}
int nvmlDeviceGetVirtualizationMode(nvml_device d, int* mode) {
  (void)d;
  *mode = h200_under_gemm() ? 0 : 1;
  return 0;
}
int nvmlDeviceGetPowerManagementLimit(nvml_device d, unsigned* milliwatts) {
  *milliwatts = power_limit_mw(d);
  return 0;
}

/* Health queries (ironbench doctor): healthy by default; FAKE_NVML_* variables make a fault. */
int nvmlDeviceGetPowerManagementDefaultLimit(nvml_device d, unsigned* milliwatts) {
  *milliwatts = default_power_limit_mw(d);
  return 0;
}
int nvmlDeviceGetPersistenceMode(nvml_device d, int* mode) {
  *mode = (int)knob(d, "FAKE_NVML_PERSISTENCE", 1);
  return 0;
}
/* Counters that rise on demand: NAME + NAME_STEP x (the GPU's reads of it so far), so that a
   test sets FAKE_NVML_ECC_CORRECTED_STEP=1 and every later reading is higher than the one
   before. */
static unsigned long long rising(const struct fake_device* d, const char* name, unsigned long long* reads) {
  char step_name[96];
  snprintf(step_name, sizeof step_name, "%s_STEP", name);
  return knob(d, name, 0) + knob(d, step_name, 0) * __atomic_fetch_add(reads, 1ull, __ATOMIC_RELAXED);
}
int nvmlDeviceGetTotalEccErrors(nvml_device d, int error_type, int counter_type, unsigned long long* count) {
  if (counter_type != 0) {
    *count = 0;
  } else if (error_type == 1) {
    *count = rising(d, "FAKE_NVML_ECC_UNCORRECTED", &d->uncorrected_reads);
  } else {
    *count = rising(d, "FAKE_NVML_ECC_CORRECTED", &d->corrected_reads);
  }
  return 0;
}
int nvmlDeviceGetPcieReplayCounter(nvml_device d, unsigned* value) {
  *value = (unsigned)rising(d, "FAKE_NVML_PCIE_REPLAYS", &d->replay_reads);
  return 0;
}

/* XID events: FAKE_NVML_XIDS="79,13" are reported in turn by nvmlEventSetWait_v2 to a set
   registered for a GPU they apply to, then a timeout, then again from the first (each drain
   of the set sees them all); FAKE_NVML_NO_EVENTS makes registering fail as on a GPU without
   event support. Each set is its own, registered for one GPU. */
typedef struct {
  nvml_device device;
  unsigned long long eventType, eventData;
  unsigned gpuInstanceId, computeInstanceId;
} nvml_event_data;
struct fake_event_set {
  nvml_device device;
  int next;
};
int nvmlEventSetCreate(struct fake_event_set** set) {
  *set = calloc(1, sizeof **set);
  return *set != NULL ? 0 : 999; /* NVML_ERROR_UNKNOWN */
}
int nvmlDeviceRegisterEvents(nvml_device d, unsigned long long types, struct fake_event_set* set) {
  if (getenv("FAKE_NVML_NO_EVENTS") != NULL) return 3; /* NVML_ERROR_NOT_SUPPORTED */
  if ((types & 0x8ull) == 0) return 2;
  set->device = d;
  return 0;
}
int nvmlEventSetWait_v2(struct fake_event_set* set, nvml_event_data* data, unsigned timeout_ms) {
  const char* list = set->device != NULL && faulty(set->device) ? getenv("FAKE_NVML_XIDS") : NULL;
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
  data->device = set->device;
  data->eventType = 0x8ull;
  data->eventData = strtoull(at, NULL, 10);
  data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
  return 0;
}
int nvmlEventSetFree(struct fake_event_set* set) {
  free(set);
  return 0;
}
int nvmlDeviceGetRemappedRows(nvml_device d, unsigned* corrected, unsigned* uncorrected, unsigned* pending,
                              unsigned* failed) {
  *corrected = 0;
  *uncorrected = 0;
  *pending = (unsigned)knob(d, "FAKE_NVML_ROWS_PENDING", 0);
  *failed = (unsigned)knob(d, "FAKE_NVML_REMAP_FAILED", 0);
  return 0;
}

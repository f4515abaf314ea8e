/*
 * A fake libnvidia-ml for tests, benchmarks and demos: it exports the NVML symbols that
 * gputop-agent binds, with nvml.h's prototypes and struct layouts (x86_64 / LP64), and keeps its
 * "GPUs" in process memory where tests script them through the fake_nvml_* functions below.
 *
 * Build (standalone):   gcc -shared -fPIC -O2 -o libnvidia-ml.so.1 fake_nvml.c
 * Variants:
 *   -DFAKE_OLD_DRIVER   an R4xx-era driver: no _v2/_v3 symbols at all (nvmlInit, nvmlDeviceGetCount,
 *                       nvmlDeviceGetHandleByIndex, nvmlDeviceGetPciInfo, nvmlDeviceGetMemoryInfo,
 *                       nvmlDeviceGetComputeRunningProcesses with 16-byte entries), no
 *                       nvmlDeviceGetTemperatureV, no nvmlDeviceGetCurrentClocksEventReasons.
 *   -DFAKE_R535_EARLY   R535.43-535.86: nvmlDeviceGetComputeRunningProcesses_v3 writes 32-byte
 *                       entries, nvmlDeviceGetConfComputeMemSizeInfo exists and
 *                       nvmlDeviceGetRunningProcessDetailList does not.
 *
 * Without any fake_nvml_* call, the first nvmlInit builds a scenario from the environment:
 *   FAKE_NVML_DEVICE_COUNT  number of GPUs (default 2, at most 8)
 *   FAKE_NVML_PROCESSES     comma-separated pid:gpuIndex:usedBytes entries, e.g. "1234:0:1073741824"
 *   FAKE_NVML_SET           comma-separated gpuIndex:field=value settings of fake_nvml_set, e.g.
 *                           "0:remap.correctable=3,1:pcie.replay=7"
 * and energy then grows with wall-clock time at the configured power.
 *
 * Xid events: fake_nvml_xid(dev, xid) queues one; nvmlEventSetWait(_v2) delivers it to the event
 * sets that registered that GPU for nvmlEventTypeXidCriticalError. A process that runs the agent
 * can be sent events from outside through a file:
 *   FAKE_NVML_XID_FILE      a file the waits read lines "gpuIndex xid" (or "gpuIndex xid lost",
 *                           which also makes the GPU fall off the bus) from as it grows
 *
 * Not thread-safe, except for the event calls: one caller at a time, plus one thread waiting for
 * events, which is how tests and the agent use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <errno.h>

typedef int nvmlReturn_t;
enum {
  NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_TIMEOUT = 10, NVML_ERROR_GPU_IS_LOST = 15, NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_UNKNOWN = 999
};

/* ---- nvml.h layouts (sizes asserted at compile time below) ---- */
typedef struct { char busIdLegacy[16]; unsigned int domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]; } nvmlPciInfo_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; } nvmlProcessInfo_v2_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; unsigned long long usedGpuCcProtectedMemory; } nvmlProcessDetail_v1_t;
typedef struct { unsigned int pid; unsigned long long timeStamp; unsigned int smUtil, memUtil, encUtil, decUtil; } nvmlProcessUtilizationSample_t;
typedef struct { unsigned int version; int sensorType; int temperature; } nvmlTemperature_v1_t;
typedef union { double dVal; int siVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal; long long sllVal; unsigned short usVal; } nvmlValue_t;
typedef struct { unsigned int fieldId, scopeId; long long timestamp, latencyUsec; int valueType; nvmlReturn_t nvmlReturn; nvmlValue_t value; } nvmlFieldValue_t;
typedef struct { void *device; unsigned long long eventType, eventData; unsigned int gpuInstanceId, computeInstanceId; } nvmlEventData_t;
/* What nvmlEventSetWait (v1) writes: the struct before R450 added the instance ids. */
typedef struct { void *device; unsigned long long eventType, eventData; } nvmlEventData_v1_t;

#define STATIC_ASSERT_SIZE(t, n) typedef char size_check_##t[(sizeof(t) == (n)) ? 1 : -1]
STATIC_ASSERT_SIZE(nvmlPciInfo_t, 68);
STATIC_ASSERT_SIZE(nvmlMemory_t, 24);
STATIC_ASSERT_SIZE(nvmlMemory_v2_t, 40);
STATIC_ASSERT_SIZE(nvmlUtilization_t, 8);
STATIC_ASSERT_SIZE(nvmlProcessInfo_v1_t, 16);
STATIC_ASSERT_SIZE(nvmlProcessInfo_v2_t, 24);
STATIC_ASSERT_SIZE(nvmlProcessDetail_v1_t, 32);
STATIC_ASSERT_SIZE(nvmlProcessUtilizationSample_t, 32);
STATIC_ASSERT_SIZE(nvmlTemperature_v1_t, 12);
STATIC_ASSERT_SIZE(nvmlFieldValue_t, 40);
STATIC_ASSERT_SIZE(nvmlEventData_t, 32);
STATIC_ASSERT_SIZE(nvmlEventData_v1_t, 24);

#define EVENT_SINGLE_BIT_ECC 0x1ULL
#define EVENT_DOUBLE_BIT_ECC 0x2ULL
#define EVENT_XID_CRITICAL 0x8ULL
#define NVLINK_MAX 36

#define NVML_MEMORY_V2 0x02000028u
#define NVML_TEMPERATURE_V1 0x0100000Cu

/* ---- the fake's state ---- */
#define MAX_GPUS 8
#define MAX_MIG 7
#define POOL (MAX_GPUS + MAX_GPUS * MAX_MIG)
#define MAX_PROCS 256
#define MAX_SAMPLES 256

typedef struct { unsigned int pid, gi, ci; unsigned long long mem; } fake_proc;
typedef struct { unsigned int pid, sm, mem; unsigned long long ts; } fake_sample;

typedef struct fake_device {
  int in_use, is_mig, parent, index, lost;
  char uuid[96], name[96], busId[32];
  unsigned long long mem_total, mem_reserved, mem_used;
  unsigned int util_gpu, util_mem, power_mw, power_limit_mw, temperature, fan;
  unsigned long long energy_mj;
  /* 1: the GPU has no total energy counter (before Volta): NVML_ERROR_NOT_SUPPORTED */
  unsigned int energy_none;
  unsigned int clocks[4];
  unsigned long long throttle, ecc[2], pcie_tx, pcie_rx;
  unsigned int mig_mode, gi, ci;
  int nprocs; fake_proc procs[MAX_PROCS];
  int nsamples; fake_sample samples[MAX_SAMPLES];
  /* memory retirement: 0 none, 1 retired pages (before Ampere), 2 row remapping (Ampere and later) */
  unsigned int retirement;
  unsigned int remap_cor, remap_unc, remap_pending, remap_failed;
  unsigned int retired_sbe, retired_dbe, retired_pending;
  unsigned int pcie_replay;
  unsigned int nvlinks;
  unsigned int nvlink_inactive[NVLINK_MAX];
  unsigned long long nvlink_errors[NVLINK_MAX][4];
  /* faults per second of wall-clock time since init, added to the PCIe replays and to every
     active link's CRC data errors as they are read (for end-to-end tests of "rising" alerts) */
  unsigned int fault_rate;
} fake_device;

static fake_device pool[POOL];
static int device_count = 0;
static int configured = 0;
static int refcount = 0;
static int init_calls = 0, shutdown_calls = 0;
static int energy_grows = 0;
static struct timespec started;
#ifdef FAKE_R535_EARLY
static int v3_stride = 32;
#else
static int v3_stride = 24;
#endif

typedef struct { char fn[64]; int dev; int code; int times; } fake_error;
static fake_error errors[64];
static int nerrors = 0;

static char call_names[128][64];
static long call_counts[128];
static int ncalls = 0;

static int register_call(const char *fn) {
  for (int i = 0; i < ncalls; i++) if (strcmp(call_names[i], fn) == 0) return i;
  if (ncalls == 128) return 127;
  snprintf(call_names[ncalls], sizeof call_names[0], "%s", fn);
  return ncalls++;
}

static int pool_index(const fake_device *d) { return (int) (d - pool); }

static int injected(const char *fn, const fake_device *d) {
  for (int i = 0; i < nerrors; i++) {
    fake_error *e = &errors[i];
    if (e->times == 0 || strcmp(e->fn, fn) != 0) continue;
    if (e->dev >= 0 && (d == NULL || e->dev != pool_index(d))) continue;
    if (e->times > 0) e->times--;
    return e->code;
  }
  return 0;
}

static int valid(const fake_device *d) {
  return d != NULL && d >= pool && d < pool + POOL && d->in_use;
}

#define ENTRY() \
  static int call_idx = -1; \
  if (call_idx < 0) call_idx = register_call(__func__); \
  call_counts[call_idx]++; \
  if (refcount <= 0) return NVML_ERROR_UNINITIALIZED; \
  if (nerrors) { int e_ = injected(__func__, NULL); if (e_) return e_; }

#define DEVICE_ENTRY(dev) \
  static int call_idx = -1; \
  if (call_idx < 0) call_idx = register_call(__func__); \
  call_counts[call_idx]++; \
  if (refcount <= 0) return NVML_ERROR_UNINITIALIZED; \
  if (!valid(dev)) return NVML_ERROR_INVALID_ARGUMENT; \
  if (nerrors) { int e_ = injected(__func__, dev); if (e_) return e_; } \
  if ((dev)->lost || ((dev)->is_mig && pool[(dev)->parent].lost)) return NVML_ERROR_GPU_IS_LOST;

static void default_device(int i) {
  fake_device *d = &pool[i];
  memset(d, 0, sizeof *d);
  d->in_use = 1;
  d->index = i;
  snprintf(d->uuid, sizeof d->uuid, "GPU-%08x-1111-2222-3333-%012x", 0xfa4e0000u + i, i);
  snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
  snprintf(d->busId, sizeof d->busId, "00000000:%02X:00.0", 0x18 + 0x10 * i);
  d->mem_total = 85520809984ULL;            /* 81559 MiB, as an H100 80GB reports */
  d->mem_reserved = 567279616ULL;           /* 541 MiB */
  d->mem_used = 1048576ULL * (1024 + 512 * i);
  d->util_gpu = 10 * (i + 1) % 101;
  d->util_mem = 5 * (i + 1) % 101;
  d->power_mw = 100000 + 10000 * i;
  d->power_limit_mw = 700000;
  d->energy_mj = 123456789ULL + i;
  d->temperature = 40 + i;
  d->fan = 30 + i;
  d->clocks[0] = 1980; d->clocks[1] = 1980; d->clocks[2] = 2619; d->clocks[3] = 1545;
  d->throttle = 0;
  d->ecc[0] = 2; d->ecc[1] = 0;
  d->pcie_tx = 1000000ULL * (i + 1);
  d->pcie_rx = 2000000ULL * (i + 1);
  d->retirement = 2;   /* an H100 remaps rows; no NVLink unless a test gives it links */
}

/* ---- events: a queue of Xid events, event sets, and the waits (guarded by event_mu) ---- */
#define MAX_EVENTS 64
#define MAX_SETS 8
typedef struct { int dev; unsigned long long xid; } fake_event;
typedef struct fake_event_set { int in_use; unsigned long long types[POOL]; } fake_event_set;
static pthread_mutex_t event_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t event_cv = PTHREAD_COND_INITIALIZER;
static fake_event events[MAX_EVENTS];
static int event_head = 0, event_count = 0;
static fake_event_set sets[MAX_SETS];
static long xid_file_offset = 0;

/* ---- scripting API (not part of NVML) ---- */

/** Forgets everything and creates count GPUs with default values; clears errors and counters. */
void fake_nvml_reset(int count) {
  if (count < 0) count = 0;
  if (count > MAX_GPUS) count = MAX_GPUS;
  memset(pool, 0, sizeof pool);
  for (int i = 0; i < count; i++) default_device(i);
  pthread_mutex_lock(&event_mu);
  event_head = event_count = 0;
  memset(sets, 0, sizeof sets);
  pthread_mutex_unlock(&event_mu);
  device_count = count;
  nerrors = 0;
  for (int i = 0; i < ncalls; i++) call_counts[i] = 0;
  init_calls = shutdown_calls = 0;
#ifdef FAKE_R535_EARLY
  v3_stride = 32;
#else
  v3_stride = 24;
#endif
  energy_grows = 0;
  configured = 1;
}

static unsigned long long *u64_field(fake_device *d, const char *f) {
  if (!strcmp(f, "memory.total")) return &d->mem_total;
  if (!strcmp(f, "memory.reserved")) return &d->mem_reserved;
  if (!strcmp(f, "memory.used")) return &d->mem_used;
  if (!strcmp(f, "energy")) return &d->energy_mj;
  if (!strcmp(f, "throttle")) return &d->throttle;
  if (!strcmp(f, "ecc.corrected")) return &d->ecc[0];
  if (!strcmp(f, "ecc.uncorrected")) return &d->ecc[1];
  if (!strcmp(f, "pcie.tx")) return &d->pcie_tx;
  if (!strcmp(f, "pcie.rx")) return &d->pcie_rx;
  return NULL;
}

static unsigned int *u32_field(fake_device *d, const char *f) {
  if (!strcmp(f, "util.gpu")) return &d->util_gpu;
  if (!strcmp(f, "util.memory")) return &d->util_mem;
  if (!strcmp(f, "power")) return &d->power_mw;
  if (!strcmp(f, "power.limit")) return &d->power_limit_mw;
  if (!strcmp(f, "temperature")) return &d->temperature;
  if (!strcmp(f, "fan")) return &d->fan;
  if (!strcmp(f, "clock.graphics")) return &d->clocks[0];
  if (!strcmp(f, "clock.sm")) return &d->clocks[1];
  if (!strcmp(f, "clock.memory")) return &d->clocks[2];
  if (!strcmp(f, "clock.video")) return &d->clocks[3];
  if (!strcmp(f, "mig.mode")) return &d->mig_mode;
  if (!strcmp(f, "memory.retirement")) return &d->retirement;
  if (!strcmp(f, "remap.correctable")) return &d->remap_cor;
  if (!strcmp(f, "remap.uncorrectable")) return &d->remap_unc;
  if (!strcmp(f, "remap.pending")) return &d->remap_pending;
  if (!strcmp(f, "remap.failed")) return &d->remap_failed;
  if (!strcmp(f, "retired.sbe")) return &d->retired_sbe;
  if (!strcmp(f, "retired.dbe")) return &d->retired_dbe;
  if (!strcmp(f, "retired.pending")) return &d->retired_pending;
  if (!strcmp(f, "pcie.replay")) return &d->pcie_replay;
  if (!strcmp(f, "nvlink.count")) return &d->nvlinks;
  if (!strcmp(f, "fault.rate")) return &d->fault_rate;
  if (!strcmp(f, "energy.none")) return &d->energy_none;
  return NULL;
}

/**
 * Sets a numeric field of device dev (an index into the pool: 0-7 for GPUs, as returned by
 * fake_nvml_add_mig for MIG instances). Fields: memory.total/.reserved/.used (bytes), energy (mJ),
 * throttle (bitmask), ecc.corrected/.uncorrected, pcie.tx/.rx (bytes), util.gpu/.memory (%),
 * power/power.limit (mW), temperature (C), fan (%), clock.graphics/.sm/.memory/.video (MHz),
 * mig.mode, lost (1 = fallen off the bus), memory.retirement (0 none, 1 retired pages, 2 row
 * remapping: the default), remap.correctable/.uncorrectable/.pending/.failed, retired.sbe/.dbe/
 * .pending, pcie.replay, nvlink.count (links, at most 36; 0 = no NVLink, the default), fault.rate
 * (PCIe replays and CRC data errors of every active link added per second since init), energy.none
 * (1 = a GPU without the total energy counter, before Volta: NVML_ERROR_NOT_SUPPORTED). Returns 0,
 * or -1 for an unknown field or device.
 */
int fake_nvml_set(int dev, const char *field, long long value) {
  if (dev < 0 || dev >= POOL || !pool[dev].in_use) return -1;
  fake_device *d = &pool[dev];
  if (!strcmp(field, "lost")) { d->lost = (int) value; return 0; }
  unsigned long long *u64 = u64_field(d, field);
  if (u64) { *u64 = (unsigned long long) value; return 0; }
  unsigned int *u32 = u32_field(d, field);
  if (u32) { *u32 = (unsigned int) value; return 0; }
  return -1;
}

/**
 * Sets a value of NVLink link of device dev: field "active" (0/1, default 1), or the error
 * counters "replay", "recovery", "crc_flit", "crc_data". Returns 0, or -1.
 */
int fake_nvml_set_nvlink(int dev, int link, const char *field, long long value) {
  if (dev < 0 || dev >= POOL || !pool[dev].in_use || link < 0 || link >= NVLINK_MAX) return -1;
  fake_device *d = &pool[dev];
  if (!strcmp(field, "active")) { d->nvlink_inactive[link] = value ? 0 : 1; return 0; }
  static const char *counters[] = {"replay", "recovery", "crc_flit", "crc_data"};
  for (int c = 0; c < 4; c++) {
    if (!strcmp(field, counters[c])) { d->nvlink_errors[link][c] = (unsigned long long) value; return 0; }
  }
  return -1;
}

static void push_event_locked(int dev, unsigned long long xid) {
  if (event_count == MAX_EVENTS) { event_head = (event_head + 1) % MAX_EVENTS; event_count--; }
  events[(event_head + event_count) % MAX_EVENTS] = (fake_event) {dev, xid};
  event_count++;
  pthread_cond_broadcast(&event_cv);
}

/**
 * Queues an Xid critical error event for device dev (a GPU), delivered by the next
 * nvmlEventSetWait of a set that registered the GPU. Returns 0, or -1 for an unknown device.
 */
int fake_nvml_xid(int dev, unsigned long long xid) {
  if (dev < 0 || dev >= POOL || !pool[dev].in_use) return -1;
  pthread_mutex_lock(&event_mu);
  push_event_locked(dev, xid);
  pthread_mutex_unlock(&event_mu);
  return 0;
}

/** Sets uuid, name or busId of device dev. Returns 0, or -1 for an unknown field or device. */
int fake_nvml_set_string(int dev, const char *field, const char *value) {
  if (dev < 0 || dev >= POOL || !pool[dev].in_use) return -1;
  fake_device *d = &pool[dev];
  if (!strcmp(field, "uuid")) { snprintf(d->uuid, sizeof d->uuid, "%s", value); return 0; }
  if (!strcmp(field, "name")) { snprintf(d->name, sizeof d->name, "%s", value); return 0; }
  if (!strcmp(field, "busId")) { snprintf(d->busId, sizeof d->busId, "%s", value); return 0; }
  return -1;
}

/** Adds a compute process to device dev (GPU or MIG instance). Returns 0, or -1 when full. */
int fake_nvml_add_process(int dev, unsigned int pid, unsigned long long usedBytes) {
  if (dev < 0 || dev >= POOL || !pool[dev].in_use || pool[dev].nprocs == MAX_PROCS) return -1;
  fake_device *d = &pool[dev];
  fake_proc *p = &d->procs[d->nprocs++];
  p->pid = pid; p->mem = usedBytes;
  p->gi = d->is_mig ? d->gi : 0xFFFFFFFFu;
  p->ci = d->is_mig ? d->ci : 0xFFFFFFFFu;
  return 0;
}

/** Removes every process of device dev. */
void fake_nvml_clear_processes(int dev) {
  if (dev >= 0 && dev < POOL) { pool[dev].nprocs = 0; pool[dev].nsamples = 0; }
}

/** Adds a per-process utilization sample (timestamp in microseconds, utilizations in %). */
int fake_nvml_add_process_sample(int dev, unsigned int pid, unsigned long long ts, unsigned int sm, unsigned int mem) {
  if (dev < 0 || dev >= POOL || !pool[dev].in_use || pool[dev].nsamples == MAX_SAMPLES) return -1;
  fake_sample *s = &pool[dev].samples[pool[dev].nsamples++];
  s->pid = pid; s->ts = ts; s->sm = sm; s->mem = mem;
  return 0;
}

/**
 * Creates a MIG instance on GPU parent (switching MIG mode on). Returns its pool index, usable
 * with the other setters, or -1.
 */
int fake_nvml_add_mig(int parent, unsigned int gi, unsigned int ci, unsigned long long memTotal) {
  if (parent < 0 || parent >= MAX_GPUS || !pool[parent].in_use) return -1;
  for (int j = 0; j < MAX_MIG; j++) {
    int idx = MAX_GPUS + parent * MAX_MIG + j;
    fake_device *m = &pool[idx];
    if (m->in_use) continue;
    memset(m, 0, sizeof *m);
    m->in_use = 1; m->is_mig = 1; m->parent = parent; m->index = j; m->gi = gi; m->ci = ci;
    snprintf(m->uuid, sizeof m->uuid, "MIG-%08x-aaaa-bbbb-cccc-%012x", 0x0a160000u + parent, j);
    char parentName[96], parentBus[32];
    memcpy(parentName, pool[parent].name, sizeof parentName);
    memcpy(parentBus, pool[parent].busId, sizeof parentBus);
    snprintf(m->name, sizeof m->name, "%.80s MIG 1g.10gb", parentName);
    snprintf(m->busId, sizeof m->busId, "%s", parentBus);
    m->mem_total = memTotal; m->mem_reserved = 0; m->mem_used = memTotal / 4;
    pool[parent].mig_mode = 1;
    return idx;
  }
  return -1;
}

/**
 * Runs GPU dev (-1: every GPU) for millis milliseconds of the test's clock at its configured
 * power: its total energy counter grows by power (mW) x millis / 1000 mJ, as the driver's does.
 * A lost GPU's counter does not move. Returns 0, or -1 for an unknown device.
 */
int fake_nvml_run(int dev, long long millis) {
  if (dev >= POOL || (dev >= 0 && !pool[dev].in_use)) return -1;
  for (int i = 0; i < MAX_GPUS; i++) {
    if ((dev < 0 || dev == i) && pool[i].in_use && !pool[i].lost) {
      pool[i].energy_mj += (unsigned long long) pool[i].power_mw * (unsigned long long) millis / 1000ULL;
    }
  }
  return 0;
}

/** 1: every GPU's energy counter grows with the time since init at its power, as in the environment's scenario. */
void fake_nvml_grow_energy(int on) { energy_grows = on ? 1 : 0; }

/**
 * Makes function fn return code for device dev (-1: any device, and functions without a device)
 * the next times calls (-1: until reset).
 */
void fake_nvml_set_error(const char *fn, int dev, int code, int times) {
  if (nerrors == 64) return;
  fake_error *e = &errors[nerrors++];
  snprintf(e->fn, sizeof e->fn, "%s", fn);
  e->dev = dev; e->code = code; e->times = times;
}

/** The size of the entries nvmlDeviceGetComputeRunningProcesses_v3 writes: 24 or 32 bytes. */
void fake_nvml_set_v3_stride(int bytes) { v3_stride = bytes == 32 ? 32 : 24; }

/** How often fn was called since the last reset. */
long fake_nvml_calls(const char *fn) {
  for (int i = 0; i < ncalls; i++) if (!strcmp(call_names[i], fn)) return call_counts[i];
  return 0;
}

int fake_nvml_init_calls(void) { return init_calls; }
int fake_nvml_shutdown_calls(void) { return shutdown_calls; }
int fake_nvml_refcount(void) { return refcount; }

static void configure_from_environment(void) {
  const char *n = getenv("FAKE_NVML_DEVICE_COUNT");
  fake_nvml_reset(n ? atoi(n) : 2);
  energy_grows = 1;
  const char *settings = getenv("FAKE_NVML_SET");
  if (settings != NULL) {
    char sbuf[4096];
    snprintf(sbuf, sizeof sbuf, "%s", settings);
    char *save = NULL;
    for (char *tok = strtok_r(sbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      int gpu = -1; char field[64]; long long value = 0;
      if (sscanf(tok, "%d:%63[^=]=%lld", &gpu, field, &value) == 3) fake_nvml_set(gpu, field, value);
    }
  }
  const char *procs = getenv("FAKE_NVML_PROCESSES");
  if (procs == NULL) return;
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", procs);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    unsigned int pid = 0, gpu = 0; unsigned long long bytes = 0;
    if (sscanf(tok, "%u:%u:%llu", &pid, &gpu, &bytes) == 3 && (int) gpu < device_count) {
      fake_nvml_add_process((int) gpu, pid, bytes);
    }
  }
}

/* ---- NVML ---- */

static const char *error_names[] = {
  "Success", "Uninitialized", "Invalid Argument", "Not Supported", "Insufficient Permissions",
  "Already Initialized", "Not Found", "Insufficient Size", "Insufficient External Power",
  "Driver Not Loaded", "Timeout", "Interrupt Request Issue", "NVML Shared Library Not Found",
  "Function Not Found", "Corrupted infoROM", "GPU is lost", "GPU requires restart",
  "The operating system has blocked the request.", "RM has detected an NVML/RM version mismatch.",
  "In use by another client", "Insufficient Memory", "No data"
};

const char *nvmlErrorString(nvmlReturn_t result) {
  if (result >= 0 && result < (int) (sizeof error_names / sizeof error_names[0])) return error_names[result];
  return "Unknown Error";
}

static nvmlReturn_t do_init(const char *fn) {
  if (!configured) configure_from_environment();
  if (nerrors) { int e = injected(fn, NULL); if (e) return e; }
  if (refcount == 0) clock_gettime(CLOCK_MONOTONIC, &started);
  refcount++;
  init_calls++;
  return NVML_SUCCESS;
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlInit_v2(void) { return do_init(__func__); }
#endif
nvmlReturn_t nvmlInit(void) { return do_init(__func__); }
nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void) flags; return do_init(__func__); }

nvmlReturn_t nvmlShutdown(void) {
  if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;
  refcount--;
  shutdown_calls++;
  return NVML_SUCCESS;
}

static nvmlReturn_t copy_string(const char *src, char *dst, unsigned int length) {
  if (dst == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(src) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(dst, src, strlen(src) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  ENTRY();
#ifdef FAKE_OLD_DRIVER
  return copy_string("440.33.01", version, length);
#elif defined(FAKE_R535_EARLY)
  return copy_string("535.54.03", version, length);
#else
  return copy_string("550.54.15", version, length);
#endif
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
  ENTRY();
  return copy_string("12.550.54.15", version, length);
}

static nvmlReturn_t get_count(unsigned int *count) {
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *count = (unsigned int) device_count;
  return NVML_SUCCESS;
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) { ENTRY(); return get_count(count); }
#endif
nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) { ENTRY(); return get_count(count); }

static nvmlReturn_t by_index(unsigned int index, fake_device **device) {
  if (device == NULL || index >= (unsigned int) device_count) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &pool[index];
  return NVML_SUCCESS;
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, fake_device **device) { ENTRY(); return by_index(index, device); }
#endif
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, fake_device **device) { ENTRY(); return by_index(index, device); }

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, fake_device **device) {
  ENTRY();
  for (int i = 0; i < POOL; i++) {
    if (pool[i].in_use && !strcmp(pool[i].uuid, uuid)) { *device = &pool[i]; return NVML_SUCCESS; }
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetIndex(fake_device *dev, unsigned int *index) {
  DEVICE_ENTRY(dev);
  *index = (unsigned int) (dev->is_mig ? dev->parent : dev->index);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(fake_device *dev, char *name, unsigned int length) {
  DEVICE_ENTRY(dev);
  return copy_string(dev->name, name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(fake_device *dev, char *uuid, unsigned int length) {
  DEVICE_ENTRY(dev);
  return copy_string(dev->uuid, uuid, length);
}

static void fill_pci(const fake_device *dev, nvmlPciInfo_t *pci, int legacyOnly) {
  memset(pci, 0, sizeof *pci);
  unsigned int domain = 0, bus = 0, device = 0, function = 0;
  sscanf(dev->busId, "%x:%x:%x.%x", &domain, &bus, &device, &function);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.%X", domain, bus, device, function);
  pci->domain = domain; pci->bus = bus; pci->device = device;
  pci->pciDeviceId = 0x233010DEu; pci->pciSubSystemId = 0x16C110DEu;
  if (!legacyOnly) snprintf(pci->busId, sizeof pci->busId, "%s", dev->busId);
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetPciInfo_v3(fake_device *dev, nvmlPciInfo_t *pci) {
  DEVICE_ENTRY(dev);
  fill_pci(dev, pci, 0);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v2(fake_device *dev, nvmlPciInfo_t *pci) {
  DEVICE_ENTRY(dev);
  fill_pci(dev, pci, 0);
  return NVML_SUCCESS;
}
#endif
/* v1 knew only the 16-byte legacy bus id at the start of the struct. */
nvmlReturn_t nvmlDeviceGetPciInfo(fake_device *dev, nvmlPciInfo_t *pci) {
  DEVICE_ENTRY(dev);
  fill_pci(dev, pci, 1);
  return NVML_SUCCESS;
}

static unsigned long long mem_free(const fake_device *d) {
  unsigned long long taken = d->mem_reserved + d->mem_used;
  return taken > d->mem_total ? 0 : d->mem_total - taken;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(fake_device *dev, nvmlMemory_t *memory) {
  DEVICE_ENTRY(dev);
  memory->total = dev->mem_total;
  memory->free = mem_free(dev);
  memory->used = dev->mem_used + dev->mem_reserved;   /* v1 counts the reserved part as used */
  return NVML_SUCCESS;
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(fake_device *dev, nvmlMemory_v2_t *memory) {
  DEVICE_ENTRY(dev);
  if (memory->version != NVML_MEMORY_V2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  memory->total = dev->mem_total;
  memory->reserved = dev->mem_reserved;
  memory->free = mem_free(dev);
  memory->used = dev->mem_used;
  return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetUtilizationRates(fake_device *dev, nvmlUtilization_t *utilization) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->mig_mode) return NVML_ERROR_NOT_SUPPORTED;
  utilization->gpu = dev->util_gpu;
  utilization->memory = dev->util_mem;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(fake_device *dev, int sensorType, unsigned int *temp) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  if (sensorType != 0) return NVML_ERROR_INVALID_ARGUMENT;
  *temp = dev->temperature;
  return NVML_SUCCESS;
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetTemperatureV(fake_device *dev, nvmlTemperature_v1_t *temperature) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  if (temperature->version != NVML_TEMPERATURE_V1) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  if (temperature->sensorType != 0) return NVML_ERROR_INVALID_ARGUMENT;
  temperature->temperature = (int) dev->temperature;
  return NVML_SUCCESS;
}
#endif

nvmlReturn_t nvmlDeviceGetPowerUsage(fake_device *dev, unsigned int *power) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *power = dev->power_mw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(fake_device *dev, unsigned int *limit) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *limit = dev->power_limit_mw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(fake_device *dev, unsigned long long *energy) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->energy_none) return NVML_ERROR_NOT_SUPPORTED;
  unsigned long long e = dev->energy_mj;
  if (energy_grows) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double seconds = (double) (now.tv_sec - started.tv_sec) + (now.tv_nsec - started.tv_nsec) / 1e9;
    e += (unsigned long long) (seconds * dev->power_mw);   /* mW * s = mJ */
  }
  *energy = e;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(fake_device *dev, int type, unsigned int *clock) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  if (type < 0 || type > 3) return NVML_ERROR_INVALID_ARGUMENT;
  *clock = dev->clocks[type];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFanSpeed(fake_device *dev, unsigned int *speed) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *speed = dev->fan;
  return NVML_SUCCESS;
}

static nvmlReturn_t throttle(const fake_device *dev, unsigned long long *reasons) {
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *reasons = dev->throttle;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(fake_device *dev, unsigned long long *reasons) {
  DEVICE_ENTRY(dev);
  return throttle(dev, reasons);
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(fake_device *dev, unsigned long long *reasons) {
  DEVICE_ENTRY(dev);
  return throttle(dev, reasons);
}
#endif

nvmlReturn_t nvmlDeviceGetTotalEccErrors(fake_device *dev, int errorType, int counterType, unsigned long long *count) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  if (errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1) return NVML_ERROR_INVALID_ARGUMENT;
  *count = dev->ecc[errorType];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFieldValues(fake_device *dev, int valuesCount, nvmlFieldValue_t *values) {
  DEVICE_ENTRY(dev);
  for (int i = 0; i < valuesCount; i++) {
    nvmlFieldValue_t *v = &values[i];
    v->timestamp = 0; v->latencyUsec = 0;
    v->valueType = 3;  /* unsigned long long */
    if (dev->is_mig) { v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED; continue; }
    switch (v->fieldId) {
      case 197: v->value.ullVal = dev->pcie_tx; v->nvmlReturn = NVML_SUCCESS; break;
      case 198: v->value.ullVal = dev->pcie_rx; v->nvmlReturn = NVML_SUCCESS; break;
      default: v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
    }
  }
  return NVML_SUCCESS;
}

/* nvmlProcessInfo entries of the given size: 16 (v1), 24 (v2/v3), 32 (R535.43-535.86 v3). */
static nvmlReturn_t running_processes(const fake_device *dev, unsigned int *count, void *infos, int stride) {
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned int n = (unsigned int) dev->nprocs;
  if (n == 0) { *count = 0; return NVML_SUCCESS; }
  if (infos == NULL || *count < n) { *count = n; return NVML_ERROR_INSUFFICIENT_SIZE; }
  for (unsigned int i = 0; i < n; i++) {
    const fake_proc *p = &dev->procs[i];
    char *at = (char *) infos + (size_t) i * stride;
    memset(at, 0, (size_t) stride);
    if (stride == 16) {
      nvmlProcessInfo_v1_t *e = (nvmlProcessInfo_v1_t *) at;
      e->pid = p->pid; e->usedGpuMemory = p->mem;
    } else {
      nvmlProcessDetail_v1_t *e = (nvmlProcessDetail_v1_t *) at;   /* 24-byte prefix == v2 */
      e->pid = p->pid; e->usedGpuMemory = p->mem; e->gpuInstanceId = p->gi; e->computeInstanceId = p->ci;
      if (stride == 32) e->usedGpuCcProtectedMemory = 0;
    }
  }
  *count = n;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(fake_device *dev, unsigned int *count, nvmlProcessInfo_v1_t *infos) {
  DEVICE_ENTRY(dev);
  return running_processes(dev, count, infos, 16);
}
#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(fake_device *dev, unsigned int *count, nvmlProcessInfo_v2_t *infos) {
  DEVICE_ENTRY(dev);
  return running_processes(dev, count, infos, 24);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(fake_device *dev, unsigned int *count, void *infos) {
  DEVICE_ENTRY(dev);
  return running_processes(dev, count, infos, v3_stride);
}
/* Present on R525+ drivers; its presence is one half of the R535-early stride heuristic. */
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(fake_device *dev, void *info) {
  DEVICE_ENTRY(dev);
  (void) info;
  return NVML_ERROR_NOT_SUPPORTED;
}
#endif
#if !defined(FAKE_OLD_DRIVER) && !defined(FAKE_R535_EARLY)
/* Present from R535.98 on; the other half of the heuristic. */
nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(fake_device *dev, void *plist) {
  DEVICE_ENTRY(dev);
  (void) plist;
  return NVML_ERROR_NOT_SUPPORTED;
}
#endif

nvmlReturn_t nvmlDeviceGetProcessUtilization(fake_device *dev, nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *count, unsigned long long lastSeenTimeStamp) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->mig_mode) return NVML_ERROR_NOT_SUPPORTED;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned int n = 0;
  for (int i = 0; i < dev->nsamples; i++) if (dev->samples[i].ts > lastSeenTimeStamp) n++;
  if (n == 0) return NVML_ERROR_NOT_FOUND;
  if (utilization == NULL || *count < n) { *count = n; return NVML_ERROR_INSUFFICIENT_SIZE; }
  unsigned int k = 0;
  for (int i = 0; i < dev->nsamples; i++) {
    const fake_sample *s = &dev->samples[i];
    if (s->ts <= lastSeenTimeStamp) continue;
    nvmlProcessUtilizationSample_t *u = &utilization[k++];
    u->pid = s->pid; u->timeStamp = s->ts; u->smUtil = s->sm; u->memUtil = s->mem; u->encUtil = 0; u->decUtil = 0;
  }
  *count = n;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(fake_device *dev, unsigned int *currentMode, unsigned int *pendingMode) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *currentMode = dev->mig_mode;
  *pendingMode = dev->mig_mode;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(fake_device *dev, unsigned int *count) {
  DEVICE_ENTRY(dev);
  *count = dev->mig_mode ? MAX_MIG : 0;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(fake_device *dev, unsigned int index, fake_device **migDevice) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || index >= MAX_MIG) return NVML_ERROR_INVALID_ARGUMENT;
  fake_device *m = &pool[MAX_GPUS + dev->index * MAX_MIG + (int) index];
  if (!m->in_use) return NVML_ERROR_NOT_FOUND;
  *migDevice = m;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(fake_device *dev, unsigned int *isMig) {
  DEVICE_ENTRY(dev);
  *isMig = (unsigned int) dev->is_mig;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(fake_device *dev, fake_device **device) {
  DEVICE_ENTRY(dev);
  if (!dev->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &pool[dev->parent];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(fake_device *dev, unsigned int *id) {
  DEVICE_ENTRY(dev);
  if (!dev->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  *id = dev->gi;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(fake_device *dev, unsigned int *id) {
  DEVICE_ENTRY(dev);
  if (!dev->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  *id = dev->ci;
  return NVML_SUCCESS;
}

/* ---- memory retirement, PCIe replays, NVLink ---- */

nvmlReturn_t nvmlDeviceGetRemappedRows(fake_device *dev, unsigned int *corrRows, unsigned int *uncRows,
                                       unsigned int *isPending, unsigned int *failureOccurred) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->retirement != 2) return NVML_ERROR_NOT_SUPPORTED;
  if (!corrRows || !uncRows || !isPending || !failureOccurred) return NVML_ERROR_INVALID_ARGUMENT;
  *corrRows = dev->remap_cor; *uncRows = dev->remap_unc;
  *isPending = dev->remap_pending; *failureOccurred = dev->remap_failed;
  return NVML_SUCCESS;
}

/* cause: NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0, _DOUBLE_BIT_ECC_ERROR = 1 */
static nvmlReturn_t retired_pages(const fake_device *dev, int cause, unsigned int *pageCount,
                                  unsigned long long *addresses, unsigned long long *timestamps) {
  if (dev->is_mig || dev->retirement != 1) return NVML_ERROR_NOT_SUPPORTED;
  if (pageCount == NULL || cause < 0 || cause > 1) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned int n = cause == 0 ? dev->retired_sbe : dev->retired_dbe;
  if (*pageCount < n) { *pageCount = n; return n == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE; }
  for (unsigned int i = 0; i < n; i++) {
    if (addresses) addresses[i] = 0x1000ULL * (i + 1) + (unsigned long long) cause;
    if (timestamps) timestamps[i] = 0;
  }
  *pageCount = n;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPages(fake_device *dev, int cause, unsigned int *pageCount, unsigned long long *addresses) {
  DEVICE_ENTRY(dev);
  return retired_pages(dev, cause, pageCount, addresses, NULL);
}
#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlDeviceGetRetiredPages_v2(fake_device *dev, int cause, unsigned int *pageCount,
                                          unsigned long long *addresses, unsigned long long *timestamps) {
  DEVICE_ENTRY(dev);
  return retired_pages(dev, cause, pageCount, addresses, timestamps);
}
#endif

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(fake_device *dev, int *isPending) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->retirement != 1) return NVML_ERROR_NOT_SUPPORTED;
  *isPending = dev->retired_pending ? 1 : 0;
  return NVML_SUCCESS;
}

static unsigned long long grown(const fake_device *dev) {
  if (dev->fault_rate == 0) return 0;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double seconds = (double) (now.tv_sec - started.tv_sec) + (now.tv_nsec - started.tv_nsec) / 1e9;
  return (unsigned long long) (seconds * dev->fault_rate);
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(fake_device *dev, unsigned int *value) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *value = dev->pcie_replay + (unsigned int) grown(dev);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(fake_device *dev, unsigned int link, int *isActive) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->nvlinks == 0) return NVML_ERROR_NOT_SUPPORTED;
  if (link >= dev->nvlinks || link >= NVLINK_MAX) return NVML_ERROR_INVALID_ARGUMENT;
  *isActive = dev->nvlink_inactive[link] ? 0 : 1;
  return NVML_SUCCESS;
}

/* counter: NVML_NVLINK_ERROR_DL_REPLAY 0, _RECOVERY 1, _CRC_FLIT 2, _CRC_DATA 3 (_ECC_DATA 4: not kept) */
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(fake_device *dev, unsigned int link, int counter, unsigned long long *value) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig || dev->nvlinks == 0) return NVML_ERROR_NOT_SUPPORTED;
  if (link >= dev->nvlinks || link >= NVLINK_MAX || counter < 0 || counter > 4) return NVML_ERROR_INVALID_ARGUMENT;
  if (counter == 4) return NVML_ERROR_NOT_SUPPORTED;
  *value = dev->nvlink_errors[link][counter] + (counter == 3 ? grown(dev) : 0);
  return NVML_SUCCESS;
}

/* ---- events ---- */

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(fake_device *dev, unsigned long long *types) {
  DEVICE_ENTRY(dev);
  *types = dev->is_mig ? 0 : (EVENT_SINGLE_BIT_ECC | EVENT_DOUBLE_BIT_ECC | EVENT_XID_CRITICAL);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetCreate(fake_event_set **set) {
  ENTRY();
  if (set == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&event_mu);
  for (int i = 0; i < MAX_SETS; i++) {
    if (!sets[i].in_use) {
      memset(&sets[i], 0, sizeof sets[i]);
      sets[i].in_use = 1;
      *set = &sets[i];
      pthread_mutex_unlock(&event_mu);
      return NVML_SUCCESS;
    }
  }
  pthread_mutex_unlock(&event_mu);
  return NVML_ERROR_UNKNOWN;
}

static int valid_set(const fake_event_set *set) {
  return set != NULL && set >= sets && set < sets + MAX_SETS && set->in_use;
}

nvmlReturn_t nvmlDeviceRegisterEvents(fake_device *dev, unsigned long long types, fake_event_set *set) {
  DEVICE_ENTRY(dev);
  if (dev->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  if (types & ~(EVENT_SINGLE_BIT_ECC | EVENT_DOUBLE_BIT_ECC | EVENT_XID_CRITICAL)) return NVML_ERROR_NOT_SUPPORTED;
  pthread_mutex_lock(&event_mu);
  nvmlReturn_t rc = NVML_ERROR_INVALID_ARGUMENT;
  if (valid_set(set)) { set->types[pool_index(dev)] |= types; rc = NVML_SUCCESS; }
  pthread_mutex_unlock(&event_mu);
  return rc;
}

/* Reads the lines FAKE_NVML_XID_FILE gained since the last read into the queue. */
static void poll_xid_file_locked(void) {
  const char *path = getenv("FAKE_NVML_XID_FILE");
  if (path == NULL) return;
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  if (fseek(f, xid_file_offset, SEEK_SET) == 0) {
    char line[128];
    while (fgets(line, sizeof line, f)) {
      if (strchr(line, '\n') == NULL) break;   /* a line still being written: read it next time */
      xid_file_offset += (long) strlen(line);
      int dev = -1; unsigned long long xid = 0; char lost[16] = "";
      if (sscanf(line, "%d %llu %15s", &dev, &xid, lost) >= 2 && dev >= 0 && dev < MAX_GPUS && pool[dev].in_use) {
        if (!strcmp(lost, "lost")) pool[dev].lost = 1;
        push_event_locked(dev, xid);
      }
    }
  }
  fclose(f);
}

static nvmlReturn_t wait_event(fake_event_set *set, nvmlEventData_t *data, unsigned int timeoutms, int v1) {
  if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;
  if (data == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeoutms / 1000;
  deadline.tv_nsec += (long) (timeoutms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000L; }
  int polls_file = getenv("FAKE_NVML_XID_FILE") != NULL;
  pthread_mutex_lock(&event_mu);
  for (;;) {
    if (!valid_set(set)) { pthread_mutex_unlock(&event_mu); return NVML_ERROR_INVALID_ARGUMENT; }
    if (polls_file) poll_xid_file_locked();
    while (event_count > 0) {
      fake_event e = events[event_head];
      event_head = (event_head + 1) % MAX_EVENTS;
      event_count--;
      if (!(set->types[e.dev] & EVENT_XID_CRITICAL)) continue;   /* not registered: NVML drops it */
      data->device = &pool[e.dev];
      data->eventType = EVENT_XID_CRITICAL;
      data->eventData = e.xid;
      if (!v1) { data->gpuInstanceId = 0xFFFFFFFFu; data->computeInstanceId = 0xFFFFFFFFu; }
      pthread_mutex_unlock(&event_mu);
      return NVML_SUCCESS;
    }
    struct timespec until = deadline;
    if (polls_file) {   /* wake every 50 ms to look at the file */
      struct timespec now;
      clock_gettime(CLOCK_REALTIME, &now);
      now.tv_nsec += 50000000L;
      if (now.tv_nsec >= 1000000000L) { now.tv_sec++; now.tv_nsec -= 1000000000L; }
      if (now.tv_sec < deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec < deadline.tv_nsec)) until = now;
    }
    int rc = pthread_cond_timedwait(&event_cv, &event_mu, &until);
    if (rc == ETIMEDOUT) {
      struct timespec now;
      clock_gettime(CLOCK_REALTIME, &now);
      if (now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
        if (polls_file) poll_xid_file_locked();
        if (event_count == 0) { pthread_mutex_unlock(&event_mu); return NVML_ERROR_TIMEOUT; }
      }
    }
  }
}

#ifndef FAKE_OLD_DRIVER
nvmlReturn_t nvmlEventSetWait_v2(fake_event_set *set, nvmlEventData_t *data, unsigned int timeoutms) {
  return wait_event(set, data, timeoutms, 0);
}
#endif
nvmlReturn_t nvmlEventSetWait(fake_event_set *set, nvmlEventData_t *data, unsigned int timeoutms) {
  return wait_event(set, data, timeoutms, 1);
}

nvmlReturn_t nvmlEventSetFree(fake_event_set *set) {
  if (refcount <= 0) return NVML_ERROR_UNINITIALIZED;
  pthread_mutex_lock(&event_mu);
  nvmlReturn_t rc = NVML_ERROR_INVALID_ARGUMENT;
  if (valid_set(set)) { set->in_use = 0; rc = NVML_SUCCESS; pthread_cond_broadcast(&event_cv); }
  pthread_mutex_unlock(&event_mu);
  return rc;
}

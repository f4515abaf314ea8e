#!/usr/bin/env python3
"""Writes the test expositions in this folder from each engine's metric definitions.

Each exposition pair (<version>-t0.prom, <version>-t1.prom) is one server scraped twice, ten
seconds apart, written in the engine's own format (README.md says which source file and version
each follows). <version>.expected.json holds what the agent must compute from the pair, worked
out here independently of the agent: rates are delta / 10 s, quantiles follow PromQL's
histogram_quantile on the bucket deltas. Single snapshots (<version>.prom) have no expectations
file; their tests assert the mapped series.

Run from this folder: python3 generate.py. Standard library only.
"""

import json
import math
import os
import re

WINDOW_S = 10.0
INF = float("inf")


# ----------------------------------------------------------------------------- number formats

def py_float(v):
    """prometheus_client: floatToGoString."""
    if v == INF:
        return "+Inf"
    if v == -INF:
        return "-Inf"
    if math.isnan(v):
        return "NaN"
    s = repr(float(v))
    if "e" in s:
        mant, exp = s.split("e")
        return mant + "e" + ("+" if not exp.startswith("-") else "-") + exp.lstrip("+-").zfill(2)
    return s


def int_or_float(v):
    """prometheus-cpp, the Rust exporters: integers without a fraction."""
    if v == INF:
        return "+Inf"
    if float(v).is_integer():
        return str(int(v))
    return repr(float(v))


def cpp_g(v):
    """llama.cpp: ostream << double, 6 significant digits."""
    if v == INF:
        return "inf"
    s = "%g" % v
    return s


# ----------------------------------------------------------------------------- histograms

class Hist:
    """A classic histogram: the observations before t0 and those between t0 and t1."""

    def __init__(self, bounds, before, window):
        self.bounds = list(bounds)
        self.before = list(before)
        self.window = list(window)

    def state(self, t):
        obs = self.before + (self.window if t == 1 else [])
        cum = []
        for b in self.bounds + [INF]:
            cum.append(sum(1 for o in obs if o <= b))
        return cum, sum(obs), len(obs)


def promql_quantile(q, bounds, counts):
    """histogram_quantile over (bound, cumulative count) with +Inf last."""
    total = counts[-1]
    if total == 0:
        return None
    rank = q * total
    for i, c in enumerate(counts):
        if c >= rank:
            break
    if i == len(bounds):  # +Inf bucket: the highest finite bound
        return bounds[-1]
    upper = bounds[i]
    if i == 0:
        lower = 0.0 if upper > 0 else upper
        below = 0.0
    else:
        lower = bounds[i - 1]
        below = counts[i - 1]
    inside = counts[i] - below
    return lower + (upper - lower) * (rank - below) / inside


def latency(hists, scale=1.0):
    """Expected {mean,p50,p90,p99,count} of histograms summed by bucket, values in seconds."""
    bounds = hists[0].bounds
    d = [0.0] * (len(bounds) + 1)
    dsum = 0.0
    dcount = 0
    for h in hists:
        c0, s0, n0 = h.state(0)
        c1, s1, n1 = h.state(1)
        for i in range(len(d)):
            d[i] += c1[i] - c0[i]
        dsum += s1 - s0
        dcount += n1 - n0
    if dcount == 0:
        return {"count": 0, "mean": None, "p50": None, "p90": None, "p99": None}
    sb = [b * scale for b in bounds]
    return {
        "count": dcount,
        "mean": dsum * scale / dcount,
        "p50": promql_quantile(0.5, sb, d),
        "p90": promql_quantile(0.9, sb, d),
        "p99": promql_quantile(0.99, sb, d),
    }


# ----------------------------------------------------------------------------- writers

def labels_text(labels, sort=False):
    items = sorted(labels.items()) if sort else list(labels.items())
    if not items:
        return ""
    return "{" + ",".join('%s="%s"' % (k, v) for k, v in items) + "}"


class PyClient:
    """prometheus_client text 0.0.4. created=True adds the _created gauge families;
    multiproc=True writes what the multiprocess collector writes (labels sorted, _sum first,
    no _created)."""

    def __init__(self, created=True, multiproc=False, created_at=1767225600.0):
        self.out = []
        self.created = created and not multiproc
        self.multiproc = multiproc
        self.created_at = created_at

    def lab(self, labels):
        return labels_text(labels, sort=self.multiproc)

    def gauge(self, name, help, series):
        self.out.append("# HELP %s %s" % (name, help))
        self.out.append("# TYPE %s gauge" % name)
        for labels, v in series:
            self.out.append("%s%s %s" % (name, self.lab(labels), py_float(v)))

    def counter(self, name, help, series):
        base = name[:-6] if name.endswith("_total") else name
        self.out.append("# HELP %s_total %s" % (base, help))
        self.out.append("# TYPE %s_total counter" % base)
        for labels, v in series:
            self.out.append("%s_total%s %s" % (base, self.lab(labels), py_float(v)))
        if self.created:
            self.out.append("# HELP %s_created %s" % (base, help))
            self.out.append("# TYPE %s_created gauge" % base)
            for labels, v in series:
                self.out.append("%s_created%s %s" % (base, self.lab(labels), py_float(self.created_at)))

    def histogram(self, name, help, series, t):
        self.out.append("# HELP %s %s" % (name, help))
        self.out.append("# TYPE %s histogram" % name)
        for labels, h in series:
            cum, s, n = h.state(t)
            if self.multiproc:
                self.out.append("%s_sum%s %s" % (name, self.lab(labels), py_float(s)))
            for b, c in zip(h.bounds + [INF], cum):
                lb = dict(labels)
                lb["le"] = py_float(b)
                self.out.append("%s_bucket%s %s" % (name, self.lab(lb), py_float(c)))
            self.out.append("%s_count%s %s" % (name, self.lab(labels), py_float(n)))
            if not self.multiproc:
                self.out.append("%s_sum%s %s" % (name, self.lab(labels), py_float(s)))
        if self.created:
            self.out.append("# HELP %s_created %s" % (name, help))
            self.out.append("# TYPE %s_created gauge" % name)
            for labels, h in series:
                self.out.append("%s_created%s %s" % (name, self.lab(labels), py_float(self.created_at)))

    def text(self):
        return "\n".join(self.out) + "\n"


class RayAgent(PyClient):
    """Ray's metrics agent re-exporting vLLM V1 under Ray Serve LLM (vllm/v1/metrics/ray_wrappers.py
    at 02579a5f): each name sanitized for OpenTelemetry ([^a-zA-Z0-9_] -> _) and prefixed ray_,
    vLLM's ReplicaId and Ray's own tags on every series, and each counter written a second time as
    a gauge without _total (RAY_EXPORT_COUNTER_AS_GAUGE, on by default). No _created. Replica r0
    holds engine 0, replica r1 engine 1 (Ray Serve runs each data-parallel rank as a replica)."""

    TAGS = {"Component": "core_worker", "NodeAddress": "127.0.0.1",
            "SessionName": "session_2026-12-01_08-00-00_000000_1", "Version": "2.52.1"}

    def __init__(self):
        super().__init__(created=False)

    @staticmethod
    def name(n):
        return "ray_" + re.sub(r"[^a-zA-Z0-9_]", "_", n)

    def lab(self, labels):
        l = dict(labels)
        replica = "r" + labels.get("engine", "0")
        l["ReplicaId"] = "LLMServer:" + replica
        l.update(self.TAGS)
        l["WorkerId"] = "0a1b2c3d" + replica
        return labels_text(l)

    def gauge(self, name, help, series):
        super().gauge(self.name(name), help, series)

    def counter(self, name, help, series):
        base = name[:-6] if name.endswith("_total") else name
        super().counter(self.name(base), help, series)
        super().gauge(self.name(base), help, series)

    def histogram(self, name, help, series, t):
        super().histogram(self.name(name), help, series, t)

    def text(self):
        # Ray's own families on the same endpoint: neither vLLM's nor drift.
        own = ["# HELP ray_node_cpu_utilization Total CPU usage on a ray node",
               "# TYPE ray_node_cpu_utilization gauge",
               'ray_node_cpu_utilization{InstanceId="",NodeAddress="127.0.0.1",SessionName="%s",Version="2.52.1"} 12.5'
               % self.TAGS["SessionName"],
               "# HELP ray_serve_num_router_requests_total The number of requests processed by the router.",
               "# TYPE ray_serve_num_router_requests_total counter",
               'ray_serve_num_router_requests_total{application="llm",deployment="LLMServer",route="/v1"} 27.0']
        return "\n".join(own) + "\n" + super().text()


class RustMetrics:
    """metrics-exporter-prometheus (TGI, TEI): no _total on counters, a blank line between
    families, TYPE without HELP where the engine describes nothing."""

    def __init__(self):
        self.blocks = []

    def _block(self, name, kind, help, lines):
        head = []
        if help:
            head.append("# HELP %s %s" % (name, help))
        head.append("# TYPE %s %s" % (name, kind))
        self.blocks.append("\n".join(head + lines))

    def gauge(self, name, help, series):
        self._block(name, "gauge", help,
                    ["%s%s %s" % (name, labels_text(l), int_or_float(v)) for l, v in series])

    def counter(self, name, help, series):
        self._block(name, "counter", help,
                    ["%s%s %s" % (name, labels_text(l), int_or_float(v)) for l, v in series])

    def histogram(self, name, help, series, t):
        lines = []
        for labels, h in series:
            cum, s, n = h.state(t)
            for b, c in zip(h.bounds + [INF], cum):
                lb = dict(labels)
                lb["le"] = "+Inf" if b == INF else repr(float(b))
                lines.append("%s_bucket%s %s" % (name, labels_text(lb), int_or_float(c)))
            lines.append("%s_sum%s %s" % (name, labels_text(labels), repr(float(s))))
            lines.append("%s_count%s %s" % (name, labels_text(labels), int_or_float(n)))
        self._block(name, "histogram", help, lines)

    def text(self):
        return "\n\n".join(self.blocks) + "\n"


class RustPrometheus:
    """The Rust prometheus crate (Dynamo): families sorted by name, integers without .0,
    labels sorted, the first bucket le="0"."""

    def __init__(self):
        self.fams = []

    def gauge(self, name, help, series):
        self.fams.append((name, "gauge", help,
                          ["%s%s %s" % (name, labels_text(l, True), int_or_float(v)) for l, v in series]))

    def counter(self, name, help, series):
        self.gauge_like(name, "counter", help, series)

    def gauge_like(self, name, kind, help, series):
        self.fams.append((name, kind, help,
                          ["%s%s %s" % (name, labels_text(l, True), int_or_float(v)) for l, v in series]))

    def histogram(self, name, help, series, t):
        lines = []
        for labels, h in series:
            cum, s, n = h.state(t)
            for b, c in zip(h.bounds + [INF], cum):
                lb = dict(labels)
                lb["le"] = "+Inf" if b == INF else int_or_float(b)
                lines.append("%s_bucket%s %s" % (name, labels_text(lb, True), int_or_float(c)))
            lines.append("%s_sum%s %s" % (name, labels_text(labels, True), repr(float(s))))
            lines.append("%s_count%s %s" % (name, labels_text(labels, True), int_or_float(n)))
        self.fams.append((name, "histogram", help, lines))

    def text(self):
        out = []
        for name, kind, help, lines in sorted(self.fams, key=lambda f: f[0]):
            out.append("# HELP %s %s" % (name, help))
            out.append("# TYPE %s %s" % (name, kind))
            out.extend(lines)
        return "\n".join(out) + "\n"


class PromCpp:
    """prometheus-cpp (Triton): counters without _total, integers without .0, labels sorted."""

    def __init__(self):
        self.out = []

    def gauge(self, name, help, series):
        self._fam(name, "gauge", help, series)

    def counter(self, name, help, series):
        self._fam(name, "counter", help, series)

    def _fam(self, name, kind, help, series):
        self.out.append("# HELP %s %s" % (name, help))
        self.out.append("# TYPE %s %s" % (name, kind))
        for l, v in series:
            self.out.append("%s%s %s" % (name, labels_text(l, True), int_or_float(v)))

    def histogram(self, name, help, series, t):
        self.out.append("# HELP %s %s" % (name, help))
        self.out.append("# TYPE %s histogram" % name)
        for labels, h in series:
            cum, s, n = h.state(t)
            self.out.append("%s_count%s %s" % (name, labels_text(labels, True), int_or_float(n)))
            self.out.append("%s_sum%s %s" % (name, labels_text(labels, True), int_or_float(s)))
            for b, c in zip(h.bounds + [INF], cum):
                lb = dict(labels)
                lb["le"] = "+Inf" if b == INF else int_or_float(b)
                self.out.append("%s_bucket%s %s" % (name, labels_text(lb, True), int_or_float(c)))

    def text(self):
        return "\n".join(self.out) + "\n"


class LlamaCpp:
    """llama-server's hand-written text: no labels (until the 2026 per-position counter)."""

    def __init__(self):
        self.out = []

    def _fam(self, name, kind, help, series):
        self.out.append("# HELP %s %s" % (name, help))
        self.out.append("# TYPE %s %s" % (name, kind))
        for l, v in series:
            self.out.append("%s%s %s" % (name, labels_text(l), cpp_g(v)))

    def counter(self, name, help, series):
        self._fam(name, "counter", help, series)

    def gauge(self, name, help, series):
        self._fam(name, "gauge", help, series)

    def text(self):
        return "\n".join(self.out) + "\n"


# ----------------------------------------------------------------------------- helpers

def at(t, v0, dv):
    return v0 + (dv if t == 1 else 0)


def write(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


def expect(folder, version, values):
    write(folder, version + ".expected.json", json.dumps(values, indent=2, sort_keys=True) + "\n")


def rate(d):
    return d / WINDOW_S


NA = None

# Bucket layouts, from the engines' source (docs/engines/*.md).
VLLM_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
             7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
VLLM_ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
            10.0, 20.0, 40.0, 80.0]
VLLM_REQ = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
            120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
SGL_TTFT = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400]
SGL_ITL = [0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060,
           0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.0, 2.0, 4.0, 6.0, 8.0]
SGL_E2E = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200,
           1800, 2400]
SGL_QUEUE = [0.0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200,
             300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500, 3000]
TGI_DURATION = [0.0001 * 1.5 ** k for k in range(1, 36)]
TEI_DURATION = []
_v = 0.00001
for _ in range(35):
    _v *= 1.5
    TEI_DURATION.append(_v)
LMD_ITL = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
           7.5, 10.0, 20.0, 40.0, 80.0]
DYN_BUCKETS = [0, 0.0019, 0.0035, 0.0067, 0.0127, 0.0241, 0.0458, 0.0871, 0.1655, 0.3145, 0.5976,
               1.1355, 2.1575, 4.0993, 7.7887, 14.7986, 28.1173, 53.4230, 101.5037]
TRITON_FIRST_RESPONSE_MS = [10, 50, 100, 250, 500, 1000, 2500, 5000]
# vLLM's (and LMDeploy's copy) build_1_2_5_buckets(max_model_len), max_model_len 131072.
VLLM_LEN = [m * 10 ** e for e in range(6) for m in (1, 2, 5) if m * 10 ** e <= 131072]
# SGLang's default_bucket_prompt_tokens (--collect-tokens-histogram), for both token histograms.
SGL_LEN = [100, 300, 500, 700, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000,
           12000, 15000, 20000, 22000, 25000, 30000, 35000, 40000, 66000, 99000, 132000, 300000,
           600000, 900000, 1100000]

# The window's workload, shared so that the numbers are easy to follow: 20 requests end in the
# window; TTFT 0.03 s ×10, 0.2 s ×6, 0.7 s ×4; ITL 0.02 s ×300, 0.06 s ×100; E2E 1.2 s ×12,
# 3 s ×8; queue 0.1 s ×18, 0.9 s ×2; prefill 0.2 s ×20; decode 2 s ×20.
W_TTFT = [0.03] * 10 + [0.2] * 6 + [0.7] * 4
W_ITL = [0.02] * 300 + [0.06] * 100
W_E2E = [1.2] * 12 + [3.0] * 8
W_QUEUE = [0.1] * 18 + [0.9] * 2
W_PREFILL = [0.2] * 20
W_DECODE = [2.0] * 20
# Request lengths in tokens (prompt 8000, generation 4000 in all; engines whose own length
# histograms the generator wrote before keep theirs).
W_PROMPT = [250] * 12 + [625] * 8
W_GEN = [100] * 10 + [300] * 10
# What happened before t0 (so that every value is a delta, never the absolute count).
B_TTFT = [0.05] * 7
B_ITL = [0.03] * 50
B_E2E = [2.0] * 7
B_QUEUE = [0.2] * 7
B_PREFILL = [0.3] * 7
B_DECODE = [1.5] * 7
B_PROMPT = [400] * 7
B_GEN = [200] * 7


def split(values, parts):
    """Deal observations round-robin into parts (engines, ranks, streaming or not)."""
    out = [[] for _ in range(parts)]
    for i, v in enumerate(values):
        out[i % parts].append(v)
    return out


# ----------------------------------------------------------------------------- vLLM

def vllm_2026(folder, ray=False):
    """vLLM 2026 line, data parallel 2 (engine 0 and 1), PrometheusStatLogger; with ray, the same
    server under Ray Serve LLM (RayPrometheusStatLogger, re-exported by Ray's metrics agent)."""
    model = "meta-llama/Llama-3.1-8B-Instruct"
    engines = ["0", "1"]
    lab = lambda e: {"model_name": model, "engine": e}
    ttft = [Hist(VLLM_TTFT, b, w) for b, w in zip(split(B_TTFT, 2), split(W_TTFT, 2))]
    itl = [Hist(VLLM_ITL, b, w) for b, w in zip(split(B_ITL, 2), split(W_ITL, 2))]
    e2e = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_E2E, 2), split(W_E2E, 2))]
    queue = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_QUEUE, 2), split(W_QUEUE, 2))]
    prefill = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_PREFILL, 2), split(W_PREFILL, 2))]
    decode = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_DECODE, 2), split(W_DECODE, 2))]
    inference = [Hist(VLLM_REQ, [], []), Hist(VLLM_REQ, [], [])]
    tpot = [Hist(VLLM_ITL, [], [0.03] * 10), Hist(VLLM_ITL, [], [0.03] * 10)]
    plen = [Hist(VLLM_LEN, b, w) for b, w in zip(split(B_PROMPT, 2), split(W_PROMPT, 2))]
    glen = [Hist(VLLM_LEN, b, w) for b, w in zip(split(B_GEN, 2), split(W_GEN, 2))]
    version = "v2026-ray" if ray else "v2026-dp2"
    for t in (0, 1):
        w = RayAgent() if ray else PyClient(created=True)
        # engine 0: 6 running, 4 waiting (3 capacity + 1 deferred); engine 1: 3 running, 2 waiting.
        w.gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
                [(lab("0"), at(t, 5, 1)), (lab("1"), at(t, 2, 1))])
        w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
                [(lab("0"), at(t, 1, 3)), (lab("1"), at(t, 0, 2))])
        w.gauge("vllm:num_requests_waiting_by_reason",
                "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for "
                "scheduling capacity; 'deferred' = deferred by transient constraints (LoRA budget, "
                "KV transfer, blocked status). Sum of all reasons equals vllm:num_requests_waiting.",
                [(dict(lab("0"), reason="capacity"), at(t, 1, 2)), (dict(lab("0"), reason="deferred"), at(t, 0, 1)),
                 (dict(lab("1"), reason="capacity"), at(t, 0, 2)), (dict(lab("1"), reason="deferred"), 0)])
        w.gauge("vllm:engine_sleep_state",
                "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is "
                "awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
                [(dict(lab(e), sleep_state=s), 1.0 if s == "awake" else 0.0)
                 for s in ("awake", "weights_offloaded", "discard_all") for e in engines])
        w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
                [(lab("0"), at(t, 0.4, 0.42)), (lab("1"), at(t, 0.3, 0.25))])
        w.gauge("vllm:kv_offload_cpu_cache_usage_perc", "CPU KV offload cache usage.",
                [(lab("0"), 0.99), (lab("1"), 0.98)])
        # prefix cache: Δqueries 8000 (5000 + 3000), Δhits 2000 (1500 + 500).
        w.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
                  [(lab("0"), at(t, 10000, 5000)), (lab("1"), at(t, 6000, 3000))])
        w.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
                  [(lab("0"), at(t, 2000, 1500)), (lab("1"), at(t, 1000, 500))])
        w.counter("vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector "
                  "cross-instance cache sharing, in terms of number of queried tokens.",
                  [(lab(e), 0.0) for e in engines])
        w.counter("vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector "
                  "cross-instance cache sharing, in terms of number of cached tokens.",
                  [(lab(e), 0.0) for e in engines])
        w.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.",
                  [(lab("0"), at(t, 3, 2)), (lab("1"), at(t, 1, 1))])
        # prompt tokens Δ 8000; by source: compute 6000 + cache hit 2000 (parts of the same 8000).
        w.counter("vllm:prompt_tokens", "Number of prefill tokens processed.",
                  [(lab("0"), at(t, 10000, 5000)), (lab("1"), at(t, 6000, 3000))])
        w.counter("vllm:prompt_tokens_by_source", "Number of prompt tokens by source.",
                  [(dict(lab("0"), source="local_compute"), at(t, 8000, 3500)),
                   (dict(lab("0"), source="local_cache_hit"), at(t, 2000, 1500)),
                   (dict(lab("0"), source="external_kv_transfer"), 0.0),
                   (dict(lab("1"), source="local_compute"), at(t, 5000, 2500)),
                   (dict(lab("1"), source="local_cache_hit"), at(t, 1000, 500)),
                   (dict(lab("1"), source="external_kv_transfer"), 0.0)])
        w.counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).",
                  [(lab("0"), at(t, 2000, 1500)), (lab("1"), at(t, 1000, 500))])
        w.counter("vllm:generation_tokens", "Number of generation tokens processed.",
                  [(lab("0"), at(t, 7000, 2400)), (lab("1"), at(t, 4000, 1600))])
        reasons = ["stop", "length", "abort", "error", "repetition"]
        succ = {("0", "stop"): (5, 8), ("0", "length"): (1, 2), ("0", "abort"): (0, 1),
                ("1", "stop"): (3, 7), ("1", "error"): (0, 2)}
        w.counter("vllm:request_success", "Count of successfully processed requests.",
                  [(dict(lab(e), finished_reason=r), at(t, *succ.get((e, r), (0, 0))))
                   for r in reasons for e in engines])
        w.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.",
                    [(lab(e), h) for e, h in zip(engines, plen)], t)
        w.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.",
                    [(lab(e), h) for e, h in zip(engines, glen)], t)
        w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                    [(lab(e), h) for e, h in zip(engines, ttft)], t)
        w.histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                    [(lab(e), h) for e, h in zip(engines, itl)], t)
        w.histogram("vllm:request_time_per_output_token_seconds",
                    "Histogram of time_per_output_token_seconds per request.",
                    [(lab(e), h) for e, h in zip(engines, tpot)], t)
        w.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                    [(lab(e), h) for e, h in zip(engines, e2e)], t)
        w.histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                    [(lab(e), h) for e, h in zip(engines, queue)], t)
        w.histogram("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.",
                    [(lab(e), h) for e, h in zip(engines, inference)], t)
        w.histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
                    [(lab(e), h) for e, h in zip(engines, prefill)], t)
        w.histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
                    [(lab(e), h) for e, h in zip(engines, decode)], t)
        # spec decode (only engine 0 has a draft model in this deployment: DP with spec decode
        # writes one engine's label values). Δdraft 1000, Δaccepted 600, per position 400 + 200.
        w.counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.",
                  [(lab("0"), at(t, 300, 500))])
        w.counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.",
                  [(lab("0"), at(t, 600, 1000))])
        w.counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.",
                  [(lab("0"), at(t, 350, 600))])
        w.counter("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.",
                  [(dict(lab("0"), position="0"), at(t, 250, 400)), (dict(lab("0"), position="1"), at(t, 100, 200))])
        w.gauge("vllm:lora_requests_info", "Running stats on lora requests.",
                [({"max_lora": "2", "waiting_lora_adapters": "", "running_lora_adapters": "sql-lora"},
                  at(t, 1767225600.0, 10.0))])
        w.gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
                [(dict(block_size="16", cache_dtype="auto", enable_prefix_caching="True", engine=e), 1.0)
                 for e in engines])
        write(folder, "%s-t%d.prom" % (version, t), w.text())
    expect(folder, version, {
        "engine": "vllm",
        "models": [model],
        "running": 9, "waiting": 6, "kvCacheUsage": 0.82,
        "prefixHitRatio": 2000 / 8000,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(8000),
        "generationTokensPerSecond": rate(4000), "preemptionsPerSecond": rate(3),
        "failedRequestsPerSecond": rate(2),  # error 2 (an abort is the client's, not a failure)
        "abortedRequestsPerSecond": rate(1),  # abort 1
        "specDecodeAcceptanceRate": 600 / 1000,
        "ttft": latency(ttft), "itl": latency(itl), "tpot": latency(tpot), "e2e": latency(e2e),
        "queue": latency(queue), "prefill": latency(prefill), "decode": latency(decode),
        "promptLength": latency(plen), "generationLength": latency(glen),
    })


def vllm_010(folder):
    """vLLM 0.10 (V1): new names beside the deprecated ones, one engine."""
    lab = {"model_name": "Qwen/Qwen2.5-7B-Instruct", "engine": "0"}
    w = PyClient(created=True)
    w.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", [(lab, 3.0)])
    w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(lab, 1.0)])
    w.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use "
            "vllm:kv_cache_usage_perc instead.", [(lab, 0.33)])
    w.counter("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queried"
              "tokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", [(lab, 999.0)])
    w.counter("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. "
              "DEPRECATED: Use vllm:prefix_cache_hits instead.", [(lab, 111.0)])
    w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", [(lab, 0.61)])
    w.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
              [(lab, 1200.0)])
    w.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", [(lab, 300.0)])
    w.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [(lab, 0.0)])
    w.counter("vllm:prompt_tokens", "Number of prefill tokens processed.", [(lab, 1200.0)])
    w.counter("vllm:generation_tokens", "Number of generation tokens processed.", [(lab, 640.0)])
    w.counter("vllm:request_success", "Count of successfully processed requests.",
              [(dict(lab, finished_reason=r), v) for r, v in (("stop", 9.0), ("length", 1.0), ("abort", 0.0))])
    w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                [(lab, Hist(VLLM_TTFT, [], [0.03] * 10))], 1)
    w.histogram("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.",
                [(lab, Hist(VLLM_ITL, [], [0.02] * 64))], 1)
    w.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                [(lab, Hist(VLLM_REQ, [], [1.2] * 10))], 1)
    w.histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                [(lab, Hist(VLLM_REQ, [], [0.1] * 10))], 1)
    write(folder, "v0.10.prom", w.text())


def vllm_v0(folder):
    """vLLM V0 (0.6, vllm/engine/metrics.py): model_name only, no _created."""
    lab = {"model_name": "facebook/opt-125m"}
    w = PyClient(created=False)
    w.gauge("vllm:num_requests_running", "Number of requests currently running on GPU.", [(lab, 2.0)])
    w.gauge("vllm:num_requests_swapped", "Number of requests swapped to CPU.", [(lab, 0.0)])
    w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(lab, 1.0)])
    w.gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", [(lab, 0.25)])
    w.gauge("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", [(lab, 0.0)])
    w.gauge("vllm:gpu_prefix_cache_hit_rate", "GPU prefix cache block hit rate.", [(lab, 0.4)])
    w.counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", [(lab, 1.0)])
    w.counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", [(lab, 500.0)])
    w.counter("vllm:generation_tokens_total", "Number of generation tokens processed.", [(lab, 300.0)])
    w.counter("vllm:request_success_total", "Count of successfully processed requests.",
              [(dict(lab, finished_reason="stop"), 4.0), (dict(lab, finished_reason="length"), 1.0)])
    w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                [(lab, Hist(VLLM_TTFT[:16], [], [0.03] * 5))], 1)
    w.histogram("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.",
                [(lab, Hist(VLLM_ITL[:13], [], [0.02] * 50))], 1)
    w.histogram("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
                [(lab, Hist([1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0], [], [1.2] * 5))], 1)
    w.histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                [(lab, Hist(VLLM_REQ, [], [0.1] * 5))], 1)
    write(folder, "v0-0.6.prom", w.text())


# ----------------------------------------------------------------------------- SGLang

def sglang_2026(folder, by_priority=False, ray=False):
    """SGLang 2026 with --enable-priority-scheduling, TP 2, tokenizer labels with is_streaming
    and the request's priority, cached tokens by cache_source. by_priority: the later line
    (metrics_collector.py at 016d8605 and after) that writes the totals alone in num_running_reqs /
    num_queue_reqs and the breakdown in families of their own, *_by_priority{priority=HIGH, LOW,
    UNKNOWN}, and forward_execution_seconds_total (was gpu_execution_seconds_total). ray: that
    server under Ray (ray_sglang_*, Ray's tags, gauge copies of the counters)."""
    model = "Qwen/Qwen3-8B"
    if by_priority:
        sched = lambda tp, prio="": {"model_name": model, "engine_type": "unified", "tp_rank": str(tp),
                                     "pp_rank": "0", "moe_ep_rank": "0"}
    else:
        sched = lambda tp, prio="": {"model_name": model, "engine_type": "unified", "tp_rank": str(tp),
                                     "pp_rank": "0", "moe_ep_rank": "0", "priority": prio}
    version = ("v2026-ray" if ray else "v2026-by-priority-tp2") if by_priority else "v2026-priority-tp2"
    tok = lambda s, p: {"model_name": model, "is_streaming": s, "priority": p}
    # TTFT / E2E / tokens per (is_streaming, priority): four series per family.
    combos = [("true", "0"), ("true", "1"), ("false", "0"), ("false", "1")]
    ttft = [Hist(SGL_TTFT, b, w) for b, w in zip(split(B_TTFT, 4), split(W_TTFT, 4))]
    e2e = [Hist(SGL_E2E, b, w) for b, w in zip(split(B_E2E, 4), split(W_E2E, 4))]
    # ITL: tokenizer labels without is_streaming (only streamed outputs have gaps).
    itl = [Hist(SGL_ITL, b, w) for b, w in zip(split(B_ITL, 2), split(W_ITL, 2))]
    queue_tp = lambda: Hist(SGL_QUEUE, B_QUEUE, W_QUEUE)
    queue = [queue_tp(), queue_tp()]  # both TP ranks observe the same requests
    # --collect-tokens-histogram: the token histograms per tokenizer series, like E2E.
    plen = [Hist(SGL_LEN, b, w) for b, w in zip(split(B_PROMPT, 4), split(W_PROMPT, 4))]
    glen = [Hist(SGL_LEN, b, w) for b, w in zip(split(B_GEN, 4), split(W_GEN, 4))]
    for t in (0, 1):
        w = RayAgent() if ray else PyClient(multiproc=True)
        # running: total 8 (priority 0: 5, priority 1: 3); waiting: total 5 (priority 0: 1, 1: 4).
        run = [(0, at(t, 4, 4), {"0": at(t, 2, 3), "1": at(t, 2, 1)}),
               (1, at(t, 4, 4), {"0": at(t, 2, 3), "1": at(t, 2, 1)})]
        waitq = [(0, at(t, 2, 3), {"0": at(t, 1, 0), "1": at(t, 1, 3)}),
                 (1, at(t, 2, 3), {"0": at(t, 1, 0), "1": at(t, 1, 3)})]
        for name, help, rows in (("sglang:num_running_reqs", "The number of running requests.", run),
                                 ("sglang:num_queue_reqs", "The number of requests in the waiting queue.", waitq)):
            series = []
            parts_series = []
            for tp, total, parts in rows:
                series.append((sched(tp), total))
                for p, v in parts.items():
                    if by_priority:
                        parts_series.append((dict(sched(tp), priority={"0": "HIGH", "1": "LOW"}[p]), v))
                    else:
                        series.append((sched(tp, p), v))
                if by_priority:
                    parts_series.append((dict(sched(tp), priority="UNKNOWN"), 0))
            w.gauge(name, help, series)
            if by_priority:
                w.gauge(name + "_by_priority", help[:-1] + " by priority.", parts_series)
        if by_priority:
            w.counter("sglang:forward_execution_seconds_total", "Total time spent in forward passes, by category.",
                      [(dict(sched(tp), category=c), at(t, 50.0, 9.0)) for tp in (0, 1) for c in ("prefill", "decode")])
        w.gauge("sglang:token_usage", "The token usage.", [(sched(0), at(t, 0.5, 0.41)), (sched(1), at(t, 0.5, 0.41))])
        w.gauge("sglang:full_token_usage", "The token usage for full attention layers.",
                [(sched(0), at(t, 0.5, 0.41)), (sched(1), at(t, 0.5, 0.41))])
        w.gauge("sglang:cache_hit_rate", "The prefix cache hit rate.", [(sched(0), 0.77), (sched(1), 0.77)])
        w.gauge("sglang:gen_throughput", "The generation throughput (token/s).", [(sched(0), 350.0), (sched(1), 350.0)])
        w.counter("sglang:num_retracted_requests", "Total number of retracted requests.",
                  [(sched(0), at(t, 1, 2)), (sched(1), at(t, 1, 2))])
        w.histogram("sglang:queue_time_seconds", "Histogram of queueing time in seconds.",
                    [(sched(0), queue[0]), (sched(1), queue[1])], t)
        # tokens: Δprompt 6000, Δgeneration 4000, Δrequests 20, split over the four combos.
        dp = [2000, 1000, 2000, 1000]
        dg = [1500, 500, 1500, 500]
        dr = [6, 4, 6, 4]
        w.counter("sglang:prompt_tokens", "Number of prefill tokens processed.",
                  [(tok(s, p), at(t, 1000, d)) for (s, p), d in zip(combos, dp)])
        w.counter("sglang:generation_tokens", "Number of generation tokens processed.",
                  [(tok(s, p), at(t, 800, d)) for (s, p), d in zip(combos, dg)])
        # cached tokens: parts for streamed HiCache requests, the total fallback for the others;
        # Δ 1200 + 300 + 450 + 50 = 2000 → hit ratio 2000 / 6000.
        w.counter("sglang:cached_tokens", "Number of cached prompt tokens by source (device/host/storage).",
                  [(dict(tok("true", "0"), cache_source="device"), at(t, 100, 1200)),
                   (dict(tok("true", "0"), cache_source="host"), at(t, 20, 300)),
                   (dict(tok("false", "0"), cache_source="total"), at(t, 50, 450)),
                   (dict(tok("false", "1"), cache_source="total"), at(t, 10, 50))])
        w.counter("sglang:num_requests", "Number of requests processed.",
                  [(tok(s, p), at(t, 3, d)) for (s, p), d in zip(combos, dr)])
        w.counter("sglang:num_aborted_requests", "Number of requests aborted.",
                  [({"model_name": model}, at(t, 0, 2))])
        w.histogram("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                    [(tok(s, p), h) for (s, p), h in zip(combos, ttft)], t)
        w.histogram("sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                    [({"model_name": model, "priority": p}, h) for p, h in zip(("0", "1"), itl)], t)
        w.histogram("sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds",
                    [(tok(s, p), h) for (s, p), h in zip(combos, e2e)], t)
        w.histogram("sglang:prompt_tokens_histogram", "Histogram of prompt token length.",
                    [(tok(s, p), h) for (s, p), h in zip(combos, plen)], t)
        w.histogram("sglang:generation_tokens_histogram", "Histogram of generation token length.",
                    [(tok(s, p), h) for (s, p), h in zip(combos, glen)], t)
        write(folder, "%s-t%d.prom" % (version, t), w.text())
    expect(folder, version, {
        "engine": "sglang", "models": [model],
        "running": 8, "waiting": 5, "kvCacheUsage": 0.91,
        "prefixHitRatio": 2000 / 6000,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(6000),
        "generationTokensPerSecond": rate(4000), "preemptionsPerSecond": rate(2),
        # SGLang counts aborts only (client disconnects and scheduler aborts alike): no failures.
        "failedRequestsPerSecond": NA, "abortedRequestsPerSecond": rate(2),
        "specDecodeAcceptanceRate": NA,
        "ttft": latency(ttft), "itl": latency(itl), "tpot": NA, "e2e": latency(e2e), "queue": latency([queue[0]]),
        "prefill": NA, "decode": NA,
        "promptLength": latency(plen), "generationLength": latency(glen),
    })


def sglang_05(folder):
    """SGLang 0.5.x (2025): TP 2, no priority, no is_streaming, no cache_source."""
    model = "meta-llama/Llama-3.1-8B-Instruct"
    sched = lambda tp: {"engine_type": "unified", "model_name": model, "pp_rank": "0", "tp_rank": str(tp)}
    tok = {"model_name": model}
    w = PyClient(multiproc=True)
    w.gauge("sglang:num_running_reqs", "The number of running requests.", [(sched(0), 4.0), (sched(1), 4.0)])
    w.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", [(sched(0), 2.0), (sched(1), 2.0)])
    w.gauge("sglang:token_usage", "The token usage.", [(sched(0), 0.6), (sched(1), 0.6)])
    w.counter("sglang:prompt_tokens", "Number of prefill tokens processed.", [(tok, 4000.0)])
    w.counter("sglang:generation_tokens", "Number of generation tokens processed.", [(tok, 2500.0)])
    w.counter("sglang:cached_tokens", "Number of cached prompt tokens.", [(tok, 1000.0)])
    w.counter("sglang:num_requests", "Number of requests processed.", [(tok, 30.0)])
    w.histogram("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                [(tok, Hist(SGL_TTFT, [], [0.3] * 30))], 1)
    w.histogram("sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                [(tok, Hist(SGL_ITL, [], [0.02] * 100))], 1)
    w.histogram("sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds",
                [(tok, Hist(SGL_E2E, [], [3.0] * 30))], 1)
    w.histogram("sglang:queue_time_seconds", "Histogram of queueing time in seconds.",
                [(sched(0), Hist(SGL_QUEUE, [], [0.1] * 30)), (sched(1), Hist(SGL_QUEUE, [], [0.1] * 30))], 1)
    write(folder, "v0.5-tp2.prom", w.text())


# ----------------------------------------------------------------------------- TGI

def tgi_337(folder):
    """TGI v3.3.7 router (metrics-exporter-prometheus)."""
    in_len = [256.0 * (i + 1) for i in range(100)]  # max_input_tokens 25600 / 100 steps
    gen_len = [32.0 * (i + 1) for i in range(100)]
    e2e = Hist(TGI_DURATION, B_E2E, W_E2E)
    queue = Hist(TGI_DURATION, B_QUEUE, W_QUEUE)
    tpot = Hist(TGI_DURATION, [0.03] * 7, [0.02] * 12 + [0.06] * 8)
    prefill = Hist(TGI_DURATION, [0.1] * 7, [0.12] * 20)
    decode = Hist(TGI_DURATION, [0.02] * 70, [0.02] * 200)
    inp = Hist(in_len, [500] * 7, [300] * 20)  # Δsum 6000 prompt tokens
    gen = Hist(gen_len, [100] * 7, [200] * 20)  # Δsum 4000 generated tokens
    for t in (0, 1):
        w = RustMetrics()
        w.counter("tgi_request_success", "Number of successful requests", [({}, at(t, 7, 20))])
        w.counter("tgi_request_count", "Total number of requests", [({}, at(t, 8, 23))])
        w.counter("tgi_request_failure", None, [({"err": "validation"}, at(t, 1, 2)), ({"err": "overloaded"}, at(t, 0, 1)),
                                                   ({"err": "dropped"}, at(t, 0, 1))])
        w.counter("tgi_batch_concat", None, [({"reason": "chunking"}, at(t, 3, 4))])
        w.gauge("tgi_queue_size", "Current queue size", [({}, at(t, 0, 3))])
        w.gauge("tgi_batch_current_size", "Current batch size", [({}, at(t, 2, 3))])
        w.gauge("tgi_batch_current_max_tokens", "Maximum tokens for the current batch", [({}, 16000)])
        w.histogram("tgi_request_duration", "Request duration", [({}, e2e)], t)
        w.histogram("tgi_request_queue_duration", "Request queue duration", [({}, queue)], t)
        w.histogram("tgi_request_mean_time_per_token_duration", "Mean time per token per request",
                    [({}, tpot)], t)
        w.histogram("tgi_batch_inference_duration", "Batch inference duration",
                    [({"method": "prefill"}, prefill), ({"method": "decode"}, decode)], t)
        w.histogram("tgi_request_input_length", "Input token length per request", [({}, inp)], t)
        w.histogram("tgi_request_generated_tokens", "Generated tokens per request", [({}, gen)], t)
        write(folder, "v3.3.7-t%d.prom" % t, w.text())
    q = latency([queue])
    p = latency([prefill])
    expect(folder, "v3.3.7", {
        "engine": "tgi", "models": [],
        "running": 5, "waiting": 3, "kvCacheUsage": NA, "prefixHitRatio": NA,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(6000),
        "generationTokensPerSecond": rate(4000), "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": rate(3), "abortedRequestsPerSecond": rate(1),  # err dropped: the client
        "specDecodeAcceptanceRate": NA,
        "ttft": NA, "itl": NA, "tpot": latency([tpot]), "e2e": latency([e2e]), "queue": q,
        "ttftApproxMean": q["mean"] + p["mean"],
        "prefill": NA, "decode": NA,
        "promptLength": latency([inp]), "generationLength": latency([gen]),
    })


# ----------------------------------------------------------------------------- llama.cpp

LLAMA_HELP = {
    "prompt_tokens_total": "Number of prompt tokens processed.",
    "prompt_tokens_cached_total": "Number of prompt tokens served from the cache.",
    "prompt_seconds_total": "Prompt process time",
    "tokens_predicted_total": "Number of generation tokens processed.",
    "tokens_predicted_seconds_total": "Predict process time",
    "n_decode_total": "Total number of llama_decode() calls",
    "n_tokens_max": "Largest observed n_tokens.",
    "n_busy_slots_per_decode": "Average number of busy slots per llama_decode() call",
    "spec_decode_num_drafts_total": "Number of speculative drafts.",
    "spec_decode_num_draft_tokens_total": "Number of draft tokens.",
    "spec_decode_num_accepted_tokens_total": "Number of accepted draft tokens.",
    "spec_decode_num_accepted_tokens_per_pos_total": "Number of accepted draft tokens per position.",
    "prompt_tokens_seconds": "Average prompt throughput in tokens/s.",
    "predicted_tokens_seconds": "Average generation throughput in tokens/s.",
    "requests_processing": "Number of requests processing.",
    "requests_deferred": "Number of requests deferred.",
    "kv_cache_usage_ratio": "KV-cache usage. 1 means 100 percent usage.",
    "kv_cache_tokens": "KV-cache tokens.",
}


def llama(w, name, kind, series):
    (w.counter if kind == "counter" else w.gauge)("llamacpp:" + name, LLAMA_HELP[name], series)


def llamacpp_2026(folder):
    """llama-server 2026 (after decaf508b): cached prompt tokens in their own counter, spec decode."""
    for t in (0, 1):
        w = LlamaCpp()
        llama(w, "prompt_tokens_total", "counter", [({}, at(t, 1200, 1500))])
        llama(w, "prompt_tokens_cached_total", "counter", [({}, at(t, 2000, 4500))])
        llama(w, "prompt_seconds_total", "counter", [({}, at(t, 3.2, 4.1))])
        llama(w, "tokens_predicted_total", "counter", [({}, at(t, 900, 1100))])
        llama(w, "tokens_predicted_seconds_total", "counter", [({}, at(t, 20.5, 30.25))])
        llama(w, "n_decode_total", "counter", [({}, at(t, 1000, 2100))])
        llama(w, "n_tokens_max", "counter", [({}, 4096)])
        llama(w, "n_busy_slots_per_decode", "counter", [({}, at(t, 1.5, -0.25))])
        llama(w, "spec_decode_num_drafts_total", "counter", [({}, at(t, 200, 400))])
        llama(w, "spec_decode_num_draft_tokens_total", "counter", [({}, at(t, 800, 1600))])
        llama(w, "spec_decode_num_accepted_tokens_total", "counter", [({}, at(t, 500, 1200))])
        llama(w, "spec_decode_num_accepted_tokens_per_pos_total", "counter",
              [({"position": "0"}, at(t, 300, 700)), ({"position": "1"}, at(t, 200, 500))])
        llama(w, "prompt_tokens_seconds", "gauge", [({}, INF if t == 0 else 812.5)])
        llama(w, "predicted_tokens_seconds", "gauge", [({}, 55.1234)])
        llama(w, "requests_processing", "gauge", [({}, at(t, 1, 1))])
        llama(w, "requests_deferred", "gauge", [({}, at(t, 0, 1))])
        write(folder, "v2026-t%d.prom" % t, w.text())
    expect(folder, "v2026", {
        "engine": "llamacpp", "models": [],
        "running": 2, "waiting": 1, "kvCacheUsage": NA,
        "prefixHitRatio": 4500 / (1500 + 4500),
        "requestsPerSecond": NA, "promptTokensPerSecond": rate(1500 + 4500),
        "generationTokensPerSecond": rate(1100), "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": NA, "abortedRequestsPerSecond": NA,
        "specDecodeAcceptanceRate": 1200 / 1600,
        "ttft": NA, "itl": NA, "tpot": NA, "e2e": NA, "queue": NA, "prefill": NA, "decode": NA,
        "promptLength": NA, "generationLength": NA,
    })


def llamacpp_202506(folder):
    """llama-server after #13660 (May 2025): no KV gauges, no cached counter."""
    w = LlamaCpp()
    llama(w, "prompt_tokens_total", "counter", [({}, 6886)])
    llama(w, "prompt_seconds_total", "counter", [({}, 2903.63)])
    llama(w, "tokens_predicted_total", "counter", [({}, 3469)])
    llama(w, "tokens_predicted_seconds_total", "counter", [({}, 3544.27)])
    llama(w, "n_decode_total", "counter", [({}, 3469)])
    llama(w, "n_busy_slots_per_decode", "counter", [({}, 1)])
    llama(w, "prompt_tokens_seconds", "gauge", [({}, 2.37151)])
    llama(w, "predicted_tokens_seconds", "gauge", [({}, 0.978778)])
    llama(w, "requests_processing", "gauge", [({}, 1)])
    llama(w, "requests_deferred", "gauge", [({}, 0)])
    write(folder, "b5600.prom", w.text())


# ----------------------------------------------------------------------------- TensorRT-LLM

def trtllm_2026(folder):
    """trtllm-serve 2026: trtllm_ prefix (tensorrt_llm/metrics/collector.py), multiprocess
    collector (labels sorted, _sum first), created series disabled."""
    lab = {"engine_type": "trtllm", "model_name": "nvidia/Llama-3.1-8B-Instruct-FP8"}
    ttft = Hist(VLLM_TTFT, B_TTFT, W_TTFT)
    tpot = Hist(VLLM_ITL, B_ITL, W_ITL)
    e2e = Hist(VLLM_REQ, B_E2E, W_E2E)
    queue = Hist(VLLM_REQ, B_QUEUE, W_QUEUE)
    for t in (0, 1):
        w = PyClient(multiproc=True)
        w.counter("trtllm_request_success_total", "Count of successfully processed requests.",
                  [(dict(lab, finished_reason="stop"), at(t, 5, 15)), (dict(lab, finished_reason="length"), at(t, 2, 4)),
                   (dict(lab, finished_reason="cancelled"), at(t, 0, 1))])
        w.counter("trtllm_request_error_total", "Total request errors, labeled by HTTP status code.",
                  [(dict(lab, http_code="400"), at(t, 1, 1)), (dict(lab, http_code="500"), at(t, 0, 1))])
        w.histogram("trtllm_e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
                    [(lab, e2e)], t)
        w.histogram("trtllm_time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                    [(lab, ttft)], t)
        w.histogram("trtllm_time_per_output_token_seconds", "Histogram of time per output token in seconds.",
                    [(lab, tpot)], t)
        w.histogram("trtllm_request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                    [(lab, queue)], t)
        w.gauge("trtllm_kv_cache_hit_rate", "KV cache hit rate", [(lab, 0.3)])
        w.gauge("trtllm_kv_cache_utilization", "KV cache utilization", [(lab, at(t, 0.2, 0.45))])
        w.counter("trtllm_prompt_tokens_total", "Total prompt tokens processed.", [(lab, at(t, 3000, 10000))])
        w.counter("trtllm_prompt_cached_tokens_total", "Total prompt tokens served from KV cache.",
                  [(lab, at(t, 500, 4000))])
        w.counter("trtllm_spec_decode_drafted_tokens_total", "Total drafted tokens per speculative decoding position.",
                  [(dict(lab, token_position="0"), at(t, 100, 500)), (dict(lab, token_position="1"), at(t, 100, 500))])
        w.counter("trtllm_spec_decode_accepted_tokens_total", "Total accepted tokens per speculative decoding position.",
                  [(dict(lab, token_position="0"), at(t, 80, 400)), (dict(lab, token_position="1"), at(t, 50, 250))])
        w.gauge("trtllm_server_queue_length", "Number of queued requests.", [(lab, at(t, 0, 4))])
        w.gauge("trtllm_num_active_requests", "Number of active requests in the batch.", [(lab, at(t, 3, 7))])
        w.gauge("trtllm_prefill_num_context_requests", "Number of context (prefill) requests in the batch.", [(lab, 2)])
        write(folder, "v2026-t%d.prom" % t, w.text())
    expect(folder, "v2026", {
        "engine": "trtllm", "models": [lab["model_name"]],
        "running": 10, "waiting": 4, "kvCacheUsage": 0.65,
        "prefixHitRatio": 4000 / 10000,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(10000),
        "generationTokensPerSecond": NA, "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": rate(2), "abortedRequestsPerSecond": rate(1),
        "specDecodeAcceptanceRate": 650 / 1000,
        "ttft": latency([ttft]), "itl": NA, "tpot": latency([tpot]), "e2e": latency([e2e]), "queue": latency([queue]),
        "prefill": NA, "decode": NA,
        "promptLength": NA, "generationLength": NA,
    })


def trtllm_11(folder):
    """trtllm-serve 1.1 (tensorrt_llm/metrics/collector.py 89fd9b74): no prefix, the labels
    "undefined" when the model was given as a path."""
    lab = {"engine_type": "undefined", "model_name": "undefined"}
    ttft = Hist(VLLM_TTFT, B_TTFT, W_TTFT)
    tpot = Hist(VLLM_ITL, B_ITL, W_ITL)
    e2e = Hist(VLLM_REQ, B_E2E, W_E2E)
    queue = Hist(VLLM_REQ, B_QUEUE, W_QUEUE)
    for t in (0, 1):
        w = PyClient(multiproc=True)
        w.counter("request_success_total", "Count of successfully processed requests.",
                  [(dict(lab, finished_reason="stop"), at(t, 7, 18)), (dict(lab, finished_reason="length"), at(t, 0, 2))])
        w.histogram("e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", [(lab, e2e)], t)
        w.histogram("time_to_first_token_seconds", "Histogram of time to first token in seconds.", [(lab, ttft)], t)
        w.histogram("time_per_output_token_seconds", "Histogram of time per output token in seconds.", [(lab, tpot)], t)
        w.histogram("request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                    [(lab, queue)], t)
        write(folder, "v1.1-undefined-t%d.prom" % t, w.text())
    expect(folder, "v1.1-undefined", {
        "engine": "trtllm", "models": [],
        "running": NA, "waiting": NA, "kvCacheUsage": NA, "prefixHitRatio": NA,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": NA,
        "generationTokensPerSecond": NA, "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": NA, "abortedRequestsPerSecond": NA, "specDecodeAcceptanceRate": NA,
        "ttft": latency([ttft]), "itl": NA, "tpot": latency([tpot]), "e2e": latency([e2e]), "queue": latency([queue]),
        "prefill": NA, "decode": NA,
        "promptLength": NA, "generationLength": NA,
    })


# ----------------------------------------------------------------------------- Triton

def trtllm_2026_050f(folder):
    """trtllm-serve at 050f80de (tensorrt_llm/metrics/collector.py, 2026): the upstream names
    num_requests_running/_waiting, generation tokens, prefill/decode/inference histograms, the
    iteration-level spec-decode counters beside the per-position ones, cached tokens by cache
    level; return_perf_metrics and enable_iter_perf_stats on. Multiprocess collector."""
    lab = {"engine_type": "trtllm", "model_name": "nvidia/Llama-3.1-8B-Instruct-FP8"}
    ttft = Hist(VLLM_TTFT, B_TTFT, W_TTFT)
    tpot = Hist(VLLM_ITL, B_ITL, W_ITL)
    e2e = Hist(VLLM_REQ, B_E2E, W_E2E)
    queue = Hist(VLLM_REQ, B_QUEUE, W_QUEUE)
    trt_prefill = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0,
                   80.0, 160.0, 640.0, 2560.0]
    prefill = Hist(trt_prefill, B_PREFILL, W_PREFILL)
    decode = Hist(VLLM_REQ, B_DECODE, W_DECODE)
    inference = Hist(VLLM_REQ, [1.8] * 7, [2.2] * 20)
    for t in (0, 1):
        w = PyClient(multiproc=True)
        w.counter("trtllm_request_success_total", "Count of successfully processed requests.",
                  [(dict(lab, finished_reason="stop"), at(t, 5, 15)), (dict(lab, finished_reason="length"), at(t, 2, 4)),
                   (dict(lab, finished_reason="cancelled"), at(t, 0, 1))])
        w.histogram("trtllm_e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", [(lab, e2e)], t)
        w.histogram("trtllm_time_to_first_token_seconds", "Histogram of time to first token in seconds.", [(lab, ttft)], t)
        w.histogram("trtllm_time_per_output_token_seconds", "Histogram of time per output token in seconds.", [(lab, tpot)], t)
        w.histogram("trtllm_request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", [(lab, queue)], t)
        w.histogram("trtllm_request_prefill_time_seconds", "Histogram of prefill (context) phase duration in seconds "
                    "(first_token_time - first_scheduled_time).", [(lab, prefill)], t)
        w.histogram("trtllm_request_decode_time_seconds", "Histogram of decode (generation) phase duration in seconds "
                    "(last_token_time - first_token_time).", [(lab, decode)], t)
        w.histogram("trtllm_request_inference_time_seconds", "Histogram of total inference duration in seconds "
                    "(last_token_time - first_scheduled_time).", [(lab, inference)], t)
        w.counter("trtllm_prompt_tokens_total", "Cumulative number of prompt (input) tokens processed.", [(lab, at(t, 3000, 10000))])
        w.counter("trtllm_generation_tokens_total", "Cumulative number of generation (output) tokens produced.",
                  [(lab, at(t, 1500, 4000))])
        w.gauge("trtllm_kv_cache_hit_rate", "KV cache hit rate", [(lab, 0.3)])
        w.gauge("trtllm_kv_cache_utilization", "KV cache utilization", [(lab, at(t, 0.2, 0.45))])
        w.gauge("trtllm_num_requests_running", "Number of active requests", [(lab, at(t, 3, 7))])
        w.gauge("trtllm_num_requests_waiting", "Number of queued requests", [(lab, at(t, 0, 4))])
        w.counter("trtllm_num_requests_completed_total", "Total number of completed requests across iterations",
                  [(lab, at(t, 7, 20))])
        w.counter("trtllm_spec_decode_num_draft_tokens_total", "Total number of draft tokens in speculative decoding",
                  [(lab, at(t, 400, 1000))])
        w.counter("trtllm_spec_decode_num_accepted_tokens_total", "Total number of accepted tokens in speculative decoding",
                  [(lab, at(t, 300, 700))])
        w.gauge("trtllm_spec_decode_acceptance_length", "Acceptance length in speculative decoding", [(lab, 1.7)])
        w.counter("trtllm_prompt_cached_tokens_total", "Process-lifetime total prompt tokens served from KV cache. "
                  "Resets only when the serving process restarts, not when the KV cache is flushed or evicted.",
                  [(lab, at(t, 500, 4000))])
        w.counter("trtllm_prompt_cache_hit_tokens_total", "Process-lifetime total prompt tokens served from each KV "
                  "cache level.", [(dict(lab, cache_level="0", cache_tier="gpu"), at(t, 400, 3000)),
                                   (dict(lab, cache_level="1", cache_tier="host"), at(t, 100, 1000))])
        # Per position: other numbers than the iteration counters, so that the test sees which is read.
        w.counter("trtllm_spec_decode_drafted_tokens_total", "Total drafted tokens per speculative decoding position.",
                  [(dict(lab, token_position="0"), at(t, 100, 500)), (dict(lab, token_position="1"), at(t, 100, 500))])
        w.counter("trtllm_spec_decode_accepted_tokens_total", "Total accepted tokens per speculative decoding position.",
                  [(dict(lab, token_position="0"), at(t, 80, 400)), (dict(lab, token_position="1"), at(t, 50, 250))])
        w.counter("trtllm_request_error_total", "Total request errors, labeled by HTTP status code.",
                  [(dict(lab, http_code="400"), at(t, 1, 1)), (dict(lab, http_code="500"), at(t, 0, 1))])
        write(folder, "v2026-050f80de-t%d.prom" % t, w.text())
    expect(folder, "v2026-050f80de", {
        "engine": "trtllm", "models": [lab["model_name"]],
        "running": 10, "waiting": 4, "kvCacheUsage": 0.65,
        "prefixHitRatio": 4000 / 10000,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(10000),
        "generationTokensPerSecond": rate(4000), "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": rate(2), "abortedRequestsPerSecond": rate(1),
        "specDecodeAcceptanceRate": 700 / 1000,  # the iteration counters, not the per-position ones
        "ttft": latency([ttft]), "itl": NA, "tpot": latency([tpot]), "e2e": latency([e2e]), "queue": latency([queue]),
        "prefill": latency([prefill]), "decode": latency([decode]),
        "promptLength": NA, "generationLength": NA,
    })


def triton_trtllm(folder):
    """Triton 2.5x (core 73aad7c) with the TensorRT-LLM backend in an ensemble, decoupled
    streaming, --metrics-config histogram_latencies=true."""
    members = ["ensemble", "postprocessing", "preprocessing", "tensorrt_llm"]
    lab = lambda m: {"model": m, "version": "1"}
    # 20 requests in the window; each member counts each; postprocessing runs per chunk (400).
    succ0 = {"ensemble": 7, "preprocessing": 7, "tensorrt_llm": 7, "postprocessing": 250}
    dsucc = {"ensemble": 20, "preprocessing": 20, "tensorrt_llm": 20, "postprocessing": 400}
    # request duration µs: tensorrt_llm Δ 36,000,000 µs over its 20 successful requests.
    dur0 = {"ensemble": 20_000_000, "preprocessing": 70_000, "tensorrt_llm": 19_000_000, "postprocessing": 300_000}
    ddur = {"ensemble": 37_000_000, "preprocessing": 200_000, "tensorrt_llm": 36_000_000, "postprocessing": 900_000}
    dq0 = {"ensemble": 1000, "preprocessing": 20_000, "tensorrt_llm": 1_400_000, "postprocessing": 20_000}
    ddq = {"ensemble": 2000, "preprocessing": 60_000, "tensorrt_llm": 5_500_000, "postprocessing": 90_000}
    first = {m: Hist(TRITON_FIRST_RESPONSE_MS, [], []) for m in members}
    first["tensorrt_llm"] = Hist(TRITON_FIRST_RESPONSE_MS, [40] * 7, [30] * 10 + [200] * 6 + [700] * 4)
    first["ensemble"] = Hist(TRITON_FIRST_RESPONSE_MS, [45] * 7, [35] * 10 + [205] * 6 + [705] * 4)
    # The backend's custom metrics reporter (tensorrtllm_backend custom_metrics_reporter.cc at
    # 7f9aa468): one observation per request of its input and output token counts.
    in_tokens = Hist([10, 50, 100, 500, 1000], [250] * 7, [300] * 20)
    out_tokens = Hist([10, 50, 100, 500, 1000], [150] * 7, [200] * 20)
    for t in (0, 1):
        w = PromCpp()
        w.counter("nv_inference_request_success", "Number of successful inference requests, all batch sizes",
                  [(lab(m), at(t, succ0[m], dsucc[m])) for m in members])
        w.counter("nv_inference_request_failure", "Number of failed inference requests, all batch sizes",
                  [(dict(lab(m), reason=r), at(t, 0, 1 if (m in ("ensemble", "tensorrt_llm") and r in ("BACKEND", "CANCELED")) else 0))
                   for m in members for r in ("REJECTED", "CANCELED", "BACKEND", "OTHER")])
        w.counter("nv_inference_count", "Number of inferences performed (does not include cached requests)",
                  [(lab(m), at(t, succ0[m], dsucc[m])) for m in members])
        w.counter("nv_inference_exec_count", "Number of model executions performed (does not include cached requests)",
                  [(lab(m), at(t, succ0[m], dsucc[m])) for m in members])
        w.counter("nv_inference_request_duration_us", "Cumulative inference request duration in microseconds (includes cached requests)",
                  [(lab(m), at(t, dur0[m], ddur[m])) for m in members])
        w.counter("nv_inference_queue_duration_us", "Cumulative inference queuing duration in microseconds (includes cached requests)",
                  [(lab(m), at(t, dq0[m], ddq[m])) for m in members])
        w.counter("nv_inference_compute_infer_duration_us", "Cumulative compute inference duration in microseconds (does not include cached requests)",
                  [(lab(m), at(t, dur0[m] // 2, ddur[m] // 2)) for m in members])
        w.gauge("nv_inference_pending_request_count", "Instantaneous number of pending requests awaiting execution per-model.",
                [(lab(m), at(t, 0, 5 if m == "ensemble" else 0)) for m in members])
        w.histogram("nv_inference_first_response_histogram_ms", "Duration from request to first response in milliseconds",
                    [(lab(m), first[m]) for m in members], t)
        w.gauge("nv_trt_llm_request_metrics", "TRT LLM request metrics",
                [(dict(lab("tensorrt_llm"), request_type=rt), v) for rt, v in
                 (("waiting", at(t, 0, 3)), ("context", 1), ("scheduled", at(t, 2, 3)), ("max", 512),
                  ("active", at(t, 2, 4)), ("generation", at(t, 1, 2)))])
        w.gauge("nv_trt_llm_kv_cache_block_metrics", "TRT LLM KV cache block metrics",
                [(dict(lab("tensorrt_llm"), kv_cache_block_type=bt), v) for bt, v in
                 (("tokens_per", 64), ("used", at(t, 1000, 2000)), ("free", at(t, 9000, 7000)),
                  ("max", 10000), ("reused", 120), ("fraction", at(t, 0.1, 0.2)))])
        w.gauge("nv_trt_llm_inflight_batcher_metrics", "TRT LLM inflight_batcher-specific metrics",
                [(dict(lab("tensorrt_llm"), inflight_batcher_specific_metric=k), v) for k, v in
                 (("micro_batch_id", 0), ("generation_requests", 4), ("total_context_tokens", 512),
                  ("paused_requests", 0))])
        w.histogram("nv_llm_input_token_len", "TRT LLM response metrics",
                    [(dict(lab("tensorrt_llm"), response_metric_type="total_input_tokens"), in_tokens)], t)
        w.histogram("nv_llm_output_token_len", "TRT LLM response metrics",
                    [(dict(lab("tensorrt_llm"), response_metric_type="total_output_tokens"), out_tokens)], t)
        w.gauge("nv_gpu_utilization", "GPU utilization rate [0.0 - 1.0)",
                [({"gpu_uuid": "GPU-6d1d2f1e-0000-0000-0000-000000000000"}, 0.83)])
        write(folder, "v2.5x-trtllm-ensemble-t%d.prom" % t, w.text())
    expect(folder, "v2.5x-trtllm-ensemble", {
        "engine": "triton", "models": ["tensorrt_llm"],
        "running": 6, "waiting": 3, "kvCacheUsage": 0.3, "prefixHitRatio": NA,
        # nv_llm_input/output_token_len _sum: 20 requests of 300 in, 200 out.
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(20 * 300),
        "generationTokensPerSecond": rate(20 * 200), "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": rate(1), "abortedRequestsPerSecond": rate(1),  # BACKEND 1; CANCELED 1
        "specDecodeAcceptanceRate": NA,
        "ttft": latency([first["tensorrt_llm"]], scale=0.001), "itl": NA, "tpot": NA,
        # The µs duration counters are sums without a distribution: not read (N/A).
        "e2e": NA, "queue": NA,
        "prefill": NA, "decode": NA,
        "promptLength": latency([in_tokens]), "generationLength": latency([out_tokens]),
    })


def triton_nonllm(folder):
    """Triton without TensorRT-LLM (an ONNX model): recognized, serving concepts N/A."""
    w = PromCpp()
    lab = {"model": "densenet_onnx", "version": "1"}
    w.counter("nv_inference_request_success", "Number of successful inference requests, all batch sizes", [(lab, 3)])
    w.counter("nv_inference_request_failure", "Number of failed inference requests, all batch sizes", [(lab, 0)])
    w.counter("nv_inference_count", "Number of inferences performed (does not include cached requests)", [(lab, 3)])
    w.counter("nv_inference_request_duration_us", "Cumulative inference request duration in microseconds (includes cached requests)", [(lab, 1320000)])
    w.counter("nv_inference_queue_duration_us", "Cumulative inference queuing duration in microseconds (includes cached requests)", [(lab, 300)])
    w.gauge("nv_inference_pending_request_count", "Instantaneous number of pending requests awaiting execution per-model.", [(lab, 0)])
    write(folder, "v2.38-onnx.prom", w.text())


# ----------------------------------------------------------------------------- Dynamo

def dynamo_frontend(folder):
    """Dynamo frontend (lib/llm/src/http/service/metrics.rs), Rust prometheus crate."""
    m = "qwen/qwen3-0.6b"
    ttft = Hist(DYN_BUCKETS, B_TTFT, W_TTFT)
    itl = Hist(DYN_BUCKETS, B_ITL, W_ITL)
    e2e = Hist(DYN_BUCKETS, B_E2E, W_E2E)
    isl = Hist([0, 50, 100, 500, 1000, 5000, 10000], [400] * 7, [300] * 20)
    osl = Hist([0, 50, 100, 500, 1000, 5000, 10000], [100] * 7, [200] * 20)
    cached = Hist([0, 50, 100, 500, 1000, 5000, 10000], [50] * 7, [90] * 20)
    for t in (0, 1):
        w = RustPrometheus()
        w.gauge("dynamo_frontend_disconnected_clients", "Number of disconnected clients", [({}, 0)])
        w.gauge("dynamo_frontend_inflight_requests", "Number of inflight requests", [({"model": m}, at(t, 3, 6))])
        w.gauge("dynamo_frontend_queued_requests", "Number of requests in HTTP processing queue", [({"model": m}, at(t, 1, 2))])
        w.histogram("dynamo_frontend_input_sequence_tokens", "Input sequence length in tokens", [({"model": m}, isl)], t)
        w.histogram("dynamo_frontend_output_sequence_tokens", "Output sequence length in tokens", [({"model": m}, osl)], t)
        w.histogram("dynamo_frontend_cached_tokens", "Number of cached tokens (prefix cache hits) per request",
                    [({"model": m}, cached)], t)
        w.counter("dynamo_frontend_output_tokens_total", "Total number of output tokens generated (updates in real-time)",
                  [({"model": m}, at(t, 700, 4100))])
        w.histogram("dynamo_frontend_inter_token_latency_seconds", "Inter-token latency in seconds", [({"model": m}, itl)], t)
        w.histogram("dynamo_frontend_request_duration_seconds", "Duration of LLM requests", [({"model": m}, e2e)], t)
        w.histogram("dynamo_frontend_time_to_first_token_seconds", "Time to first token in seconds", [({"model": m}, ttft)], t)
        w.counter("dynamo_frontend_requests_total", "Total number of LLM requests processed",
                  [({"endpoint": "chat_completions", "model": m, "request_type": "stream", "status": "success"}, at(t, 5, 14)),
                   ({"endpoint": "chat_completions", "model": m, "request_type": "unary", "status": "success"}, at(t, 2, 4)),
                   ({"endpoint": "completions", "model": m, "error_type": "internal", "request_type": "stream", "status": "error"}, at(t, 0, 1)),
                   ({"endpoint": "completions", "model": m, "error_type": "cancelled", "request_type": "stream", "status": "error"}, at(t, 1, 1))])
        w.gauge("dynamo_frontend_model_total_kv_blocks", "Total KV cache blocks available for a worker serving the model",
                [({"model": "Qwen/Qwen3-0.6B"}, 92962)])
        write(folder, "v1.x-frontend-t%d.prom" % t, w.text())
    expect(folder, "v1.x-frontend", {
        "engine": "dynamo", "models": [m],
        # cached tokens: 20 × 90 of the 20 × 300 prompt tokens.
        "running": NA, "waiting": NA, "kvCacheUsage": NA, "prefixHitRatio": 1800 / 6000,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(6000),
        "generationTokensPerSecond": rate(4100), "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": rate(1), "abortedRequestsPerSecond": rate(1),  # internal 1; cancelled 1
        "specDecodeAcceptanceRate": NA,
        "ttft": latency([ttft]), "itl": latency([itl]), "tpot": NA, "e2e": latency([e2e]), "queue": NA,
        "prefill": NA, "decode": NA,
        "promptLength": latency([isl]), "generationLength": latency([osl]),
    })


# ----------------------------------------------------------------------------- LMDeploy

def lmdeploy_016(folder):
    """LMDeploy v0.16.0 (lmdeploy/metrics/loggers.py), DP 2, created series disabled."""
    model = "internlm/internlm3-8b-instruct"
    lab = lambda e: {"model_name": model, "engine": e}
    engines = ["0", "1"]
    ttft = [Hist(VLLM_TTFT, b, w) for b, w in zip(split(B_TTFT, 2), split(W_TTFT, 2))]
    itl = [Hist(LMD_ITL, b, w) for b, w in zip(split(B_ITL, 2), split(W_ITL, 2))]
    tpot = [Hist(LMD_ITL, [], [0.5] * 3), Hist(LMD_ITL, [], [0.5] * 3)]
    e2e = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_E2E, 2), split(W_E2E, 2))]
    queue = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_QUEUE, 2), split(W_QUEUE, 2))]
    prefill = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_PREFILL, 2), split(W_PREFILL, 2))]
    plen = [Hist(VLLM_LEN, b, w) for b, w in zip(split(B_PROMPT, 2), split(W_PROMPT, 2))]
    glen = [Hist(VLLM_LEN, b, w) for b, w in zip(split(B_GEN, 2), split(W_GEN, 2))]
    decode = [Hist(VLLM_REQ, b, w) for b, w in zip(split(B_DECODE, 2), split(W_DECODE, 2))]
    for t in (0, 1):
        w = PyClient(created=False)
        w.gauge("lmdeploy:backend_config_info", "information of backend_config",
                [({"cache_max_entry_count": "0.8", "tp": "1"}, 1.0)])
        w.gauge("lmdeploy:num_requests_succeeded", "Number of current succeeded requests.", [(lab(e), at(t, 3, 10)) for e in engines])
        w.gauge("lmdeploy:num_requests_failed", "Number of current failed requests.", [(lab(e), 0.0) for e in engines])
        w.gauge("lmdeploy:num_api_requests_routed", "Number of requests routed to request handles.", [(lab(e), 4.0) for e in engines])
        w.gauge("lmdeploy:num_api_requests_waiting", "Number of requests waiting for free request handles.", [(lab(e), 7.0) for e in engines])
        w.gauge("lmdeploy:num_requests_running", "Number of requests in model execution batches.",
                [(lab("0"), at(t, 2, 2)), (lab("1"), at(t, 1, 2))])
        w.gauge("lmdeploy:num_requests_waiting", "Number of requests waiting to be processed.",
                [(lab("0"), at(t, 0, 1)), (lab("1"), at(t, 0, 2))])
        w.gauge("lmdeploy:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.",
                [(lab("0"), at(t, 0.2, 0.5)), (lab("1"), at(t, 0.2, 0.3))])
        w.gauge("lmdeploy:prefix_cache_hit_rate", "Prefix-cache hit rate. 1 means 100 percent of queried prefix tokens hit.",
                [(lab(e), 0.25) for e in engines])
        w.counter("lmdeploy:prompt_tokens_total", "Number of prefill tokens processed.",
                  [(lab("0"), at(t, 1000, 3000)), (lab("1"), at(t, 1000, 2000))])
        w.counter("lmdeploy:generation_tokens_total", "Number of generation tokens processed.",
                  [(lab("0"), at(t, 500, 2500)), (lab("1"), at(t, 500, 1500))])
        w.counter("lmdeploy:spec_decode_num_drafts_total", "Number of spec decoding drafts.",
                  [(lab(e), at(t, 10, 100)) for e in engines])
        w.counter("lmdeploy:spec_decode_num_draft_tokens_total", "Number of draft tokens.",
                  [(lab(e), at(t, 30, 300)) for e in engines])
        w.counter("lmdeploy:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.",
                  [(lab("0"), at(t, 20, 240)), (lab("1"), at(t, 20, 180))])
        w.counter("lmdeploy:spec_decode_num_accepted_tokens_per_pos_total", "Number of accepted tokens per position.",
                  [(dict(lab(e), position=p), at(t, 10, v)) for e in engines for p, v in (("0", 100), ("1", 80))])
        reasons = ["ResponseType.SUCCESS", "ResponseType.FINISH", "ResponseType.CANCEL", "ResponseType.INTERNAL_ENGINE_ERROR"]
        succ = {("0", "ResponseType.FINISH"): (3, 9), ("0", "ResponseType.CANCEL"): (0, 1),
                ("1", "ResponseType.FINISH"): (4, 9), ("1", "ResponseType.INTERNAL_ENGINE_ERROR"): (0, 1)}
        w.counter("lmdeploy:request_success_total", "Count of successfully processed requests.",
                  [(dict(lab(e), finished_reason=r), at(t, *succ.get((e, r), (0, 0)))) for r in reasons for e in engines])
        w.counter("lmdeploy:cached_tokens_total", "Total prefix-cached input tokens served.",
                  [(lab("0"), at(t, 100, 900)), (lab("1"), at(t, 100, 600))])
        w.histogram("lmdeploy:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                    [(lab(e), h) for e, h in zip(engines, ttft)], t)
        w.histogram("lmdeploy:time_per_output_token_seconds", "Histogram of time per output token in seconds.",
                    [(lab(e), h) for e, h in zip(engines, tpot)], t)
        w.histogram("lmdeploy:iter_token_latency", "Histogram of inter-token latency",
                    [(lab(e), h) for e, h in zip(engines, itl)], t)
        w.histogram("lmdeploy:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
                    [(lab(e), h) for e, h in zip(engines, e2e)], t)
        w.histogram("lmdeploy:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                    [(lab(e), h) for e, h in zip(engines, queue)], t)
        w.histogram("lmdeploy:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
                    [(lab(e), h) for e, h in zip(engines, prefill)], t)
        w.histogram("lmdeploy:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
                    [(lab(e), h) for e, h in zip(engines, decode)], t)
        w.histogram("lmdeploy:request_prompt_tokens", "Number of prefill tokens processed.",
                    [(lab(e), h) for e, h in zip(engines, plen)], t)
        w.histogram("lmdeploy:request_generation_tokens", "Number of generation tokens processed.",
                    [(lab(e), h) for e, h in zip(engines, glen)], t)
        write(folder, "v0.16.0-dp2-t%d.prom" % t, w.text())
    expect(folder, "v0.16.0-dp2", {
        "engine": "lmdeploy", "models": [model],
        # 0.14 on: Δcached (900 + 600) / Δprompt (3000 + 2000).
        "running": 7, "waiting": 3, "kvCacheUsage": 0.7, "prefixHitRatio": 1500 / 5000,
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(5000),
        "generationTokensPerSecond": rate(4000), "preemptionsPerSecond": NA,
        # finished_reason: INTERNAL_ENGINE_ERROR 1 failed, CANCEL 1 aborted.
        "failedRequestsPerSecond": rate(1), "abortedRequestsPerSecond": rate(1),
        "specDecodeAcceptanceRate": 420 / 600,
        "ttft": latency(ttft), "itl": latency(itl), "tpot": latency(tpot), "e2e": latency(e2e), "queue": latency(queue),
        "prefill": latency(prefill), "decode": latency(decode),
        "promptLength": latency(plen), "generationLength": latency(glen),
    })


# ----------------------------------------------------------------------------- TEI

def tei_19(folder):
    """text-embeddings-router v1.9 (router/src/lib.rs, http/server.rs, core/src/queue.rs)."""
    e2e = Hist(TEI_DURATION, [0.02] * 7, [0.015] * 12 + [0.04] * 8)
    queue = Hist(TEI_DURATION, [0.001] * 7, [0.0005] * 18 + [0.004] * 2)
    tok = Hist(TEI_DURATION, [0.0002] * 7, [0.0001] * 20)
    inf_ = Hist(TEI_DURATION, [0.01] * 7, [0.012] * 20)
    inp = Hist([2.0 ** i for i in range(10)], [12] * 9, [40] * 50)
    for t in (0, 1):
        w = RustMetrics()
        w.counter("te_embed_count", None, [({}, at(t, 9, 50))])
        w.counter("te_request_success", None, [({"method": "single"}, at(t, 5, 15)), ({"method": "batch"}, at(t, 2, 5))])
        w.counter("te_request_count", None, [({"method": "single"}, at(t, 6, 16)), ({"method": "batch"}, at(t, 2, 6))])
        w.counter("te_request_failure", None, [({"err": "validation"}, at(t, 1, 1)), ({"err": "tokenization"}, at(t, 0, 1)),
                                          ({"err": "dropped"}, at(t, 0, 1))])
        w.counter("te_embed_success", None, [({}, at(t, 9, 50))])
        w.gauge("te_queue_size", None, [({}, at(t, 0, 12))])
        w.histogram("te_request_duration", None, [({}, e2e)], t)
        w.histogram("te_request_tokenization_duration", None, [({}, tok)], t)
        w.histogram("te_request_queue_duration", None, [({}, queue)], t)
        w.histogram("te_request_inference_duration", None, [({}, inf_)], t)
        w.histogram("te_request_input_length", None, [({}, inp)], t)
        write(folder, "v1.9-t%d.prom" % t, w.text())
    expect(folder, "v1.9", {
        "engine": "tei", "models": [],
        "running": NA, "waiting": NA, "kvCacheUsage": NA, "prefixHitRatio": NA,
        # te_request_input_length: 50 inputs of 40 tokens in the window.
        "requestsPerSecond": rate(20), "promptTokensPerSecond": rate(50 * 40),
        "generationTokensPerSecond": NA, "preemptionsPerSecond": NA,
        "failedRequestsPerSecond": rate(2), "abortedRequestsPerSecond": rate(1),  # err dropped
        "specDecodeAcceptanceRate": NA,
        "ttft": NA, "itl": NA, "tpot": NA, "e2e": latency([e2e]), "queue": latency([queue]),
        "prefill": NA, "decode": NA,
        # per input, not per request: 50 inputs of 40 tokens.
        "promptLength": latency([inp]), "generationLength": NA,
    })


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    vllm_2026(os.path.join(here, "vllm"))
    vllm_2026(os.path.join(here, "vllm"), ray=True)
    vllm_010(os.path.join(here, "vllm"))
    vllm_v0(os.path.join(here, "vllm"))
    sglang_2026(os.path.join(here, "sglang"))
    sglang_2026(os.path.join(here, "sglang"), by_priority=True)
    sglang_2026(os.path.join(here, "sglang"), by_priority=True, ray=True)
    sglang_05(os.path.join(here, "sglang"))
    tgi_337(os.path.join(here, "tgi"))
    llamacpp_2026(os.path.join(here, "llamacpp"))
    llamacpp_202506(os.path.join(here, "llamacpp"))
    trtllm_2026(os.path.join(here, "trtllm"))
    trtllm_2026_050f(os.path.join(here, "trtllm"))
    trtllm_11(os.path.join(here, "trtllm"))
    triton_trtllm(os.path.join(here, "triton"))
    triton_nonllm(os.path.join(here, "triton"))
    dynamo_frontend(os.path.join(here, "dynamo"))
    lmdeploy_016(os.path.join(here, "lmdeploy"))
    tei_19(os.path.join(here, "tei"))

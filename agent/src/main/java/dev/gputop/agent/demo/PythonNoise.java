package dev.gputop.agent.demo;

/**
 * The {@code python_*} and {@code process_*} families that prometheus_client's default registry
 * puts before an application's own metrics (as in every vLLM capture). Values move plausibly with
 * uptime. Stateless and thread-safe.
 */
final class PythonNoise {

  private PythonNoise() {}

  static void write(StringBuilder b, LoadModel.Stats st, double cpuPerSecond, boolean openMetrics) {
    double uptime = Math.max(0, (st.nowNanos() - st.startNanos()) / 1e9);
    long gc0 = 7431 + (long) (uptime * 3.1);
    family(b, openMetrics, "python_gc_objects_collected_total", "Objects collected during gc", "counter",
        "python_gc_objects_collected_total{generation=\"0\"} " + Fmt.python(gc0) + "\n"
            + "python_gc_objects_collected_total{generation=\"1\"} " + Fmt.python(4936 + gc0 / 9) + "\n"
            + "python_gc_objects_collected_total{generation=\"2\"} " + Fmt.python(1661 + gc0 / 97) + "\n");
    family(b, openMetrics, "python_gc_objects_uncollectable_total", "Uncollectable objects found during GC", "counter",
        "python_gc_objects_uncollectable_total{generation=\"0\"} 0.0\n"
            + "python_gc_objects_uncollectable_total{generation=\"1\"} 0.0\n"
            + "python_gc_objects_uncollectable_total{generation=\"2\"} 0.0\n");
    long col0 = 1151 + (long) (uptime * 0.4);
    family(b, openMetrics, "python_gc_collections_total", "Number of times this generation was collected", "counter",
        "python_gc_collections_total{generation=\"0\"} " + Fmt.python(col0) + "\n"
            + "python_gc_collections_total{generation=\"1\"} " + Fmt.python(104 + col0 / 11) + "\n"
            + "python_gc_collections_total{generation=\"2\"} " + Fmt.python(6 + col0 / 190) + "\n");
    family(b, openMetrics, "python_info", "Python platform information", "gauge",
        "python_info{implementation=\"CPython\",major=\"3\",minor=\"12\",patchlevel=\"11\",version=\"3.12.11\"} 1.0\n");
    family(b, openMetrics, "process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge",
        "process_virtual_memory_bytes " + Fmt.python(4.1592471552e10) + "\n");
    family(b, openMetrics, "process_resident_memory_bytes", "Resident memory size in bytes.", "gauge",
        "process_resident_memory_bytes " + Fmt.python(5.106151424e9 + Math.floor(uptime) * 4096) + "\n");
    family(b, openMetrics, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge",
        "process_start_time_seconds " + Fmt.python(Math.floor(st.startEpochNanos() / 1e7) / 100) + "\n");
    family(b, openMetrics, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter",
        "process_cpu_seconds_total " + Fmt.python(Math.floor((10.95 + uptime * cpuPerSecond) * 100) / 100) + "\n");
    family(b, openMetrics, "process_open_fds", "Number of open file descriptors.", "gauge",
        "process_open_fds 49.0\n");
    family(b, openMetrics, "process_max_fds", "Maximum number of open file descriptors.", "gauge",
        "process_max_fds 1.048576e+06\n");
  }

  private static void family(StringBuilder b, boolean openMetrics, String name, String help, String type, String samples) {
    if (openMetrics && type.equals("counter") && name.endsWith("_total")) {
      name = name.substring(0, name.length() - "_total".length()); // OpenMetrics names the family without it
    }
    Fmt.header(b, name, help, type);
    b.append(samples);
  }
}

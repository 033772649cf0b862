# The README's main job, run by the guest's /init (brisk.cmd64) in scripts/boot-perf and bench/boot:
# perf stat on a CPU workload, then perf record on it and perf report. The kernel times its sample
# interrupts in wall-clock time and throttles sampling when the host is busy; 0 turns that off.
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
perf stat -e cycles,instructions,branches,branch-misses /usr/bin/brisk-workload
perf record -e instructions -c 100000 -o /tmp/perf.data /usr/bin/brisk-workload
perf report -i /tmp/perf.data --stdio --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15

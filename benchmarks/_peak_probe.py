"""The peak-memory probe shared by the benchmarks that measure it in a fresh process: resident MB now, then the
kernel's peak (VmHWM) reset to it, so the peak after the measured call is what that call added (Linux /proc)."""

PEAK_PROBE = '''
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field): return int(line.split()[1]) / 1024
rss = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f: f.write("5")     # reset the peak (VmHWM) to the current RSS
'''

"""`humancert report --out-of-core` on a 1.94 GB long CSV (88M labels: 11M items, each labelled by 8 of 40 annotators,
a model column) at --memory-limit 1GB, plain and gzipped: time, peak temporary disk, peak RSS (issue 42 item 7); and on
a 10^6-item sample, the out-of-core report.json against the in-memory one (the same numbers, notes aside).

The tables are written by DuckDB's `range` into --tmp (not the repository). Each run is the installed command in a
fresh process whose TMPDIR is a fresh folder under --tmp; that folder's size is polled every 0.5 s (DuckDB's spill
files and the Parquet parts both live there), so "peak temporary disk" is the most it held at once.

    python benchmarks/bench_out_of_core.py --tmp /tmp/ooc [--items 11e6] [--sample 1e6] [--memory-limit 1GB] [--inputs big.csv big.csv.gz] [--compare]

writes benchmarks/out_of_core.csv and benchmarks/out_of_core.md. Run it alone: it takes the machine's two cores.
"""
import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent


def make_table(n_items, path, threads=2):
    "11M items x 8 of 40 annotators (item i: annotators (7i + 5j) mod 40, j < 8), labels lab0-lab2 agreeing with the model 70 % of the time."
    import duckdb
    if Path(path).exists(): return
    con = duckdb.connect(config={"threads": threads, "memory_limit": "2GB"})
    q = f"""SELECT i AS item, 'r' || lpad(((i * 7 + j * 5) % 40)::VARCHAR, 2, '0') AS annotator,
      CASE WHEN hash(i, j) % 10 < 7 THEN 'lab' || (hash(i) % 3)::VARCHAR ELSE 'lab' || ((hash(i, j) // 10) % 3)::VARCHAR END AS label,
      'lab' || (hash(i) % 3)::VARCHAR AS model
      FROM range({int(n_items)}) r(i), range(8) s(j)"""
    con.execute(f"COPY ({q}) TO '{path}' (HEADER{', COMPRESSION gzip' if str(path).endswith('.gz') else ''})")


def _du(p):
    total = 0
    for root, _, files in os.walk(p):
        for f in files:
            try: total += os.path.getsize(os.path.join(root, f))
            except OSError: pass
    return total


def run(args, tmp):
    "The command in a fresh process with TMPDIR a fresh folder: (return code, seconds, CPU seconds, peak temporary bytes, peak RSS MB, bytes left, stderr tail)."
    tdir = Path(tempfile.mkdtemp(prefix="tmpdir-", dir=tmp))
    env = dict(os.environ, TMPDIR=str(tdir))
    peak, done = [0], threading.Event()
    def poll():
        while not done.is_set():
            peak[0] = max(peak[0], _du(tdir)); time.sleep(0.5)
    th = threading.Thread(target=poll, daemon=True); th.start()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = r0.ru_maxrss
    t = time.perf_counter()
    res = subprocess.run([shutil.which("humancert") or "humancert", *args], capture_output=True, text=True, env=env)
    s = time.perf_counter() - t
    done.set(); th.join()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss, cpu = max(before, r1.ru_maxrss) / 1024, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
    left = _du(tdir)
    shutil.rmtree(tdir, ignore_errors=True)
    return res.returncode, s, cpu, peak[0], rss, left, res.stderr.strip()[-300:]


def _same(a, b, path="report"):
    "Differences between two report.json trees (floats to 1e-11 relative: in memory adds floats over 10^5 labels, out of core divides exact integer sums), notes left out."
    if isinstance(a, dict):
        out = [f"{path}: keys" ] if set(a) - {"notes"} != set(b) - {"notes"} else []
        return out + [d for k in set(a) & set(b) - {"notes"} for d in _same(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list):
        return [f"{path}: length"] if len(a) != len(b) else [d for n, (x, y) in enumerate(zip(a, b)) for d in _same(x, y, f"{path}[{n}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if a == b or abs(a - b) <= 1e-11 * max(abs(a), abs(b)) or (a != a and b != b) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def compare(ooc, mem):
    "The two report.json trees: identical outside the annotator view?, and in it, the annotators in both top tables equal (ties in labels are ordered by id out of core, by first appearance in memory)."
    rest = _same({k: v for k, v in ooc.items() if k != "annotators"}, {k: v for k, v in mem.items() if k != "annotators"})
    pa = {r["annotator"]: r for r in ooc["annotators"]["per_annotator"]}
    pb = {r["annotator"]: r for r in mem["annotators"]["per_annotator"]}
    both = sorted(set(pa) & set(pb))
    per = [d for k in both for d in _same(pa[k], pb[k], f"per_annotator[{k}]")]
    ties = len({r["labels"] for r in ooc["annotators"]["per_annotator"]}) < len(pa)
    return (("identical outside the annotator view" if not rest else f"{len(rest)} differences outside the annotator view: {rest[:3]}")
            + f"; per-annotator rows of the {len(both)} annotators in both top tables: "
            + ("equal (floats to a relative 1e-11)" if not per else f"{len(per)} differences: {per[:3]}")
            + ("; the top annotators are tied in labels, ordered by id out of core and by first appearance in INPUT in memory, so the two top tables show different tied annotators" if ties else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--items", type=float, default=11e6)
    ap.add_argument("--sample", type=float, default=1e6)
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument("--compare", action="store_true", help="only compare the sample's two report.json already in --tmp and rewrite the result files")
    ap.add_argument("--inputs", nargs="*", default=["big.csv", "big.csv.gz"], help="the large tables to run (none: only the sample)")
    a = ap.parse_args()
    tmp = Path(a.tmp); tmp.mkdir(parents=True, exist_ok=True)
    rows = []
    common = ["--format", "long", "--model", "model", "--quiet"]
    files = [tmp / name for name in a.inputs]
    for f in files:
        make_table(a.items, f)
        load = os.getloadavg()[0]
        out = tmp / f"out-{f.name}"
        shutil.rmtree(out, ignore_errors=True)
        code, s, cpu, peak, rss, left, err = run(["report", str(f), *common, "--out-of-core", "--memory-limit", a.memory_limit, "--out", str(out)], tmp)
        rows.append({"input": f.name, "bytes": f.stat().st_size, "labels": int(a.items) * 8, "memory_limit": a.memory_limit, "rc": code,
                     "seconds": round(s, 1), "cpu_s": round(cpu, 1), "peak_temp_mb": round(peak / 1e6), "left_temp_mb": round(left / 1e6),
                     "peak_rss_mb": round(rss), "load_before": round(load, 1), "error": err if code else ""})
        print(rows[-1], flush=True)
    sample = tmp / "sample.csv"
    if a.sample: make_table(a.sample, sample)
    outs = {}
    for mode in ("in memory", "out of core") if a.sample else ():
        out = tmp / f"out-sample-{mode.replace(' ', '-')}"
        shutil.rmtree(out, ignore_errors=True)
        extra = ["--out-of-core", "--memory-limit", a.memory_limit] if mode == "out of core" else []
        code, s, cpu, peak, rss, left, err = run(["report", str(sample), *common, *extra, "--out", str(out)], tmp)
        outs[mode] = json.loads((out / "report.json").read_text()) if code == 0 else None
        rows.append({"input": f"sample.csv ({mode})", "bytes": sample.stat().st_size, "labels": int(a.sample) * 8,
                     "memory_limit": a.memory_limit if extra else "-", "rc": code, "seconds": round(s, 1), "cpu_s": round(cpu, 1), "peak_temp_mb": round(peak / 1e6),
                     "left_temp_mb": round(left / 1e6), "peak_rss_mb": round(rss), "load_before": round(os.getloadavg()[0], 1), "error": err if code else ""})
        print(rows[-1], flush=True)
    import pandas as pd
    df = pd.DataFrame(rows)
    prev, sample_note = HERE / "out_of_core.csv", HERE / "out_of_core_sample.txt"
    if a.compare: outs = {m: json.loads((tmp / f"out-sample-{m.replace(' ', '-')}" / "report.json").read_text()) for m in ("in memory", "out of core")}
    if outs: sample_note.write_text(compare(outs["out of core"], outs["in memory"]) if all(outs.values()) else "a run failed")
    if prev.exists():                                  # rows of earlier runs whose input was not run again are kept
        old = pd.read_csv(prev, keep_default_na=False)
        df = old if df.empty else pd.concat([old[~old["input"].isin(df["input"])], df], ignore_index=True)
    df.to_csv(prev, index=False)
    md = [f"# `humancert report --out-of-core` at {a.memory_limit}", "",
          f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared: `load_before` is the 1-minute load average when the run started), "
          f"Python {platform.python_version()}. Command: `python benchmarks/bench_out_of_core.py --tmp DIR`. Each run is "
          "`humancert report FILE --format long --model model --out-of-core --memory-limit 1GB --out DIR` in a fresh process whose TMPDIR "
          "is a fresh folder, polled every 0.5 s" + (" (`cpu_s`: its user + system CPU seconds, all threads)" if "cpu_s" in df else "") + ": `peak_temp_mb` is the most it held (DuckDB's spill files and the Parquet parts of the "
          "items), `left_temp_mb` what was left after the command exited. Tables: 8 labels per item from 40 annotators, three classes, "
          "a model column, written by DuckDB's `range`.", "",
          df.drop(columns=["error"]).to_markdown(index=False), "",
          "The sample (sample.csv), report.json out of core against in memory (notes aside): "
          + (sample_note.read_text() if sample_note.exists() else "not run") + ".", ""]
    (HERE / "out_of_core.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()

"""docs/performance.md's GPU table rows from benches/gpu_table.sh's output (its file, or standard input).

    bash benches/gpu_table.sh "" 1024 4096 8192 | tee table.txt; python3 benches/gpu_summary.py table.txt

Per kind and size: steps/s by the wall clock, GPU µs a step and GB/s over the passes where the run
took timestamps, Gcell-steps/s, the cost model's bytes a step and the share of `--peak` GB/s
(4800: an H200's datasheet) those bytes reach at the faster of the two clocks.
"""

import argparse
import re
import sys


def rows(text):
    kind = None
    row = {}
    for line in text.splitlines():
        if line.startswith("## "):
            if row:
                yield row
            row = {}
            head = re.match(r"## (\w[\w-]*) (\d+)²", line)
            if head:
                row = {"kind": head.group(1), "n": int(head.group(2))}
            continue
        if not row:
            continue
        m = re.search(r"([\d.]+) steps/s, ([\d.e+]+) cell-steps/s by the wall clock", line)
        if m:
            row["steps_s"], row["cells_s"] = float(m.group(1)), float(m.group(2))
        m = re.search(r"GPU time per step: ([\d.]+) µs in the passes.*?([\d.]+) GB/s over the passes", line)
        if m:
            row["gpu_us"], row["gpu_gbs"] = float(m.group(1)), float(m.group(2))
        m = re.search(r"step total: (\d+) B/cell .*?, (\d+) dispatches", line)
        if m:
            row["bytes"], row["dispatches"] = int(m.group(1)), int(m.group(2))
        m = re.match(r"# exit (\d+)|error: (.*)", line)
        if m:
            row["failed"] = line.strip()
    if row:
        yield row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", help="gpu_table.sh's output (default: standard input)")
    ap.add_argument("--peak", type=float, default=4800.0, help="the memory's peak, GB/s")
    args = ap.parse_args()
    text = open(args.file, encoding="utf-8").read() if args.file else sys.stdin.read()
    print("| kind | grid | steps/s | GPU µs/step | Gcell-steps/s | B/cell, dispatches | GB/s | % of peak |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows(text):
        grid = f"{r['n']}²"
        if "steps_s" not in r:
            print(f"| {r['kind']} | {grid} | {r.get('failed', 'no figures')} | | | | | |")
            continue
        cells = r["n"] * r["n"]
        gpu = r.get("gpu_us")
        if gpu:
            # Timed: the passes' own time and the cost model's bytes over it.
            per_second, gbs, cost = 1e6 / gpu, r["gpu_gbs"], "in the passes' table"
        else:
            per_second = r["steps_s"]
            gbs = r.get("bytes", 0) * cells * per_second / 1e9
            cost = f"{r.get('bytes', '?')}, {r.get('dispatches', '?')}"
        print(
            f"| {r['kind']} | {grid} | {r['steps_s']:.4g} | {gpu if gpu else '– (wall clock)'} | "
            f"{cells * per_second / 1e9:.3g} | {cost} | {gbs:.0f} | {100 * gbs / args.peak:.0f} % |"
        )


if __name__ == "__main__":
    main()

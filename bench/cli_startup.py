#!/usr/bin/python3
"""CLI start-up: `loom --version` (the launcher alone) and `loom version` (the launcher plus the commands
library with every media library, what each command pays), against `ls --version` and /bin/true.

    /usr/bin/python3 bench/cli_startup.py --loom build/cli/loom [--runs 200] [--json out.json]

Each command runs --runs times, the commands taking turns (so a burst of load on the machine hits
them alike), stdout to /dev/null; wall time from fork to exit as subprocess.run sees it. Prints the
median and minimum per command.
"""
import argparse
import json
import statistics
import subprocess
import time

import benchlib


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom", required=True, help="path of the loom executable")
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--json", help="also write the results as JSON here")
    return p.parse_args()


def main():
    args = parse_args()
    commands = {"/bin/true": ["/bin/true"], "ls --version": ["ls", "--version"],
                "loom --version": [args.loom, "--version"], "loom version": [args.loom, "version"]}
    times = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    results = {name: {"median_ms": statistics.median(t) * 1e3, "min_ms": min(t) * 1e3} for name, t in times.items()}
    print(f"{'command':<16} {'median ms':>9} {'min ms':>7}")
    for name, r in results.items():
        print(f"{name:<16} {r['median_ms']:9.2f} {r['min_ms']:7.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "runs": args.runs, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()

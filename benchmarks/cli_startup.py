"""CPU time of `sqlanon --help` (issue 37: under 0.3 s; it was 0.9 s when the
package imported DuckDB and pandas on start). Runs the installed command
--runs times in child processes and reads their CPU time (user + system) from
the kernel (resource.RUSAGE_CHILDREN), so the load of other jobs on a shared
machine moves it less than wall-clock time. Also `python -c "import sqlanon"`
for comparison, and the command's import time of duckdb/pandas (none).

    .venv/bin/python benchmarks/cli_startup.py [--runs 10]

Writes benchmarks/results/cli_startup.json and cli_startup.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).parent / "results"
GOAL = 0.3


def _cpu(cmd: list[str], runs: int) -> tuple[list[float], list[float]]:
    cpu, wall = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    exe = shutil.which("sqlanon", path=str(Path(sys.executable).parent)) or "sqlanon"
    cases = {
        "sqlanon --help": [exe, "--help"],
        "sqlanon release --help": [exe, "release", "--help"],
        "python -c 'import sqlanon'": [sys.executable, "-c", "import sqlanon"],
        "python -c 'import sqlanon; sqlanon.connect'": [sys.executable, "-c", "import sqlanon; sqlanon.connect"],
    }
    heavy = subprocess.run([sys.executable, "-c", "import sys, sqlanon.cli; print(sorted(m for m in ('duckdb', "
                            "'pandas', 'numpy', 'jinja2', 'sqlglot') if m in sys.modules))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    results = {}
    for name, cmd in cases.items():
        cpu, wall = _cpu(cmd, args.runs)
        results[name] = {"cpu_median_s": statistics.median(cpu), "cpu_max_s": max(cpu),
                         "wall_median_s": statistics.median(wall)}
    meta = {"runs": args.runs, "machine": platform.platform(), "python": platform.python_version(),
            "cpus": os.cpu_count(), "load_1min": os.getloadavg()[0], "heavy_modules_imported_by_cli": heavy,
            "goal_cpu_s": GOAL}
    OUT.mkdir(exist_ok=True)
    (OUT / "cli_startup.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    lines = [
        "# `sqlanon --help`: CPU time (benchmarks/cli_startup.py)",
        "",
        f"{args.runs} runs each, child CPU time (user + system) from the kernel; {meta['machine']}, Python "
        f"{meta['python']}, {meta['cpus']} cores shared with other jobs (1-minute load {meta['load_1min']:.1f}). "
        f"Goal: under {GOAL} s of CPU. Heavy modules that `import sqlanon.cli` loads: {heavy}.",
        "",
        "| command | CPU median | CPU max | wall median |",
        "|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(f"| `{name}` | {r['cpu_median_s']:.3f} s | {r['cpu_max_s']:.3f} s | {r['wall_median_s']:.3f} s |")
    lines += ["", "Before (this machine, 3 runs of `/usr/bin/time sqlanon --help`): 0.71-0.77 s of CPU (issue 37 saw 0.9 s): `import sqlanon` "
              "imported DuckDB, pandas, Jinja and sqlglot. Now the package's names are imported on first use "
              "(PEP 562 `__getattr__` in sqlanon/__init__.py) and each command imports what it needs.", ""]
    (OUT / "cli_startup.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()

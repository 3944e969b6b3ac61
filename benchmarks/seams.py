"""Issue 14 acceptance: "release benchmarks unchanged within noise (ratios in
one run)". In ONE run, for pairs of commits (A = before, B = after):

- the commit just before the first seams merge (``Merge branch 'w14...'``) vs
  HEAD: the whole distance, which also holds every non-seams change merged
  meanwhile (the release gate, counterfeit tuples, ...);
- each seams merge vs its first parent: the seams changes alone.

Each commit is checked out into a temporary worktree outside the repository
(``git worktree add --detach``). The releases run in subprocesses that import
that worktree's package (PYTHONPATH), alternately A, B, A, B, ...; each
subprocess loads Adult (adult.data, 30,162 complete rows), warms up, then per
repetition times one ORDER BY of the source (all QI and the SA), the Adult
m-invariance release of benchmarks/release.py's part 1 (m = 5, generalized
output, QI age ... native_country, SA occupation) and a static-Anatomy release
(l = 5, same QI and SA), each as the first release of a fresh project. Reported:
per commit the medians of the release seconds and of the release / ORDER BY
ratios (the ORDER BY run in the same process just before), and B / A of those.

    .venv/bin/python benchmarks/seams.py [--rounds 3] [--reps 3]

Writes benchmarks/results/seams.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "results"

WORKER = r"""
import json, sys, time
import sqlanon
from sqlanon.datasets import load_adult
reps = int(sys.argv[1])
QI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
con = sqlanon.connect()
load_adult(con, "adult", part="data", complete=True)

def order_by():
    t = time.perf_counter()
    con.execute("CREATE OR REPLACE TEMP TABLE bench_sorted AS SELECT * FROM adult ORDER BY "
                + ", ".join(QI + ["occupation"])).fetchall()
    dt = time.perf_counter() - t
    con.execute("DROP TABLE bench_sorted")
    return dt

def release(i, kind):
    kw = dict(m=5, output="generalized") if kind == "minv" else dict(model="anatomy", l=5)
    t = time.perf_counter()
    r = sqlanon.Publisher(con, f"{kind}{i}", source="adult", id="id", qi=QI, sa="occupation", allow_shared=True,
                          **kw).release()  # independent experiments over the same persons (issue 33)
    return time.perf_counter() - t, r.published - r.counterfeits, r.groups

out = {"file": sqlanon.__file__, "minv": [], "static": []}
for i in range(reps + 1):  # repetition 0 warms the process up (imports, template compilation)
    for kind in ("minv", "static"):
        ob = order_by()
        sec, rows, groups = release(i, kind)
        if i:
            out[kind].append({"seconds": sec, "order_by": ob, "rows": rows, "groups": groups})
print(json.dumps(out))
"""


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout.strip()


def pairs() -> list[tuple[str, str, str]]:
    """(label, commit A, commit B): first seams merge's parent vs HEAD, then each
    seams merge vs its first parent (oldest first)."""
    merges = [line.split(" ", 1) for line in git("log", "--merges", "--format=%H %s").splitlines()]
    seams = [(h, s) for h, s in merges if s.startswith("Merge branch 'w14")][::-1]
    if not seams:
        raise SystemExit("no seams merge (Merge branch 'w14...') in the history")
    head = git("rev-parse", "HEAD")
    out = [(f"before seams ({seams[0][0][:7]}^1) vs HEAD", git("rev-parse", seams[0][0] + "^1"), head)]
    for h, s in seams:
        branch = s.split("'")[1]
        out.append((f"{branch} merge {h[:7]} vs its first parent", git("rev-parse", h + "^1"), h))
    return out


def run_worker(tree: Path, reps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    res = subprocess.run([sys.executable, "-c", WORKER, str(reps)], cwd=tree, env=env, capture_output=True,
                         text=True, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not out["file"].startswith(str(tree)):
        raise SystemExit(f"worker imported {out['file']}, not the worktree {tree}")
    return out


def summary(runs: list[dict]) -> dict:
    s = {}
    for kind in ("minv", "static"):
        xs = [x for r in runs for x in r[kind]]
        s[kind] = {"median_seconds": statistics.median(x["seconds"] for x in xs),
                   "best_seconds": min(x["seconds"] for x in xs),
                   "median_ratio": statistics.median(x["seconds"] / x["order_by"] for x in xs),
                   "median_order_by": statistics.median(x["order_by"] for x in xs),
                   "n": len(xs), "rows": xs[0]["rows"], "groups": xs[0]["groups"]}
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="A,B subprocess pairs per commit pair")
    ap.add_argument("--reps", type=int, default=3, help="timed releases per model per subprocess")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    todo = pairs()
    base = Path(tempfile.mkdtemp(prefix="sqlanon_seams_"))
    trees: dict[str, Path] = {}
    res = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "duckdb": duckdb.__version__,
           "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M"),
           "load_start": os.getloadavg(), "rounds": args.rounds, "reps": args.reps, "pairs": []}
    try:
        for _, a, b in todo:
            for c in (a, b):
                if c not in trees:
                    trees[c] = base / c[:12]
                    git("worktree", "add", "--detach", str(trees[c]), c)
        for label, a, b in todo:
            runs: dict[str, list] = {"A": [], "B": []}
            for _ in range(args.rounds):  # A, B, A, B, ...: both sides see the same load
                for side, c in (("A", a), ("B", b)):
                    runs[side].append(run_worker(trees[c], args.reps))
            sa, sb = summary(runs["A"]), summary(runs["B"])
            entry = {"label": label, "A": a, "B": b, "A_summary": sa, "B_summary": sb,
                     "B_over_A": {k: {"median_seconds": sb[k]["median_seconds"] / sa[k]["median_seconds"],
                                      "median_ratio": sb[k]["median_ratio"] / sa[k]["median_ratio"]}
                                  for k in ("minv", "static")},
                     "raw": runs}
            res["pairs"].append(entry)
            print(label, json.dumps(entry["B_over_A"]), flush=True)
    finally:
        for t in trees.values():
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(t)], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
    res["load_end"] = os.getloadavg()
    args.out.mkdir(exist_ok=True)
    (args.out / "seams.json").write_text(json.dumps(res, indent=1) + "\n")
    (args.out / "seams.md").write_text(write_md(res))
    print(write_md(res))


def write_md(res: dict) -> str:
    lines = [
        "# Release benchmarks across the seams merges (issue 14)",
        "",
        f"Generated by `benchmarks/seams.py` ({res['machine']}, DuckDB {res['duckdb']}, Python {res['python']}, "
        f"{res['date']}; load average {res['load_start'][0]:.1f} at start, {res['load_end'][0]:.1f} at end). "
        f"Adult (adult.data, complete rows); per commit {res['rounds']} subprocesses run alternately with the other "
        f"commit of the pair (A, B, A, B, ...), each with {res['reps']} timed releases per model after one warm-up. "
        "m-inv: m = 5, generalized output (benchmarks/release.py part 1); static: model anatomy, l = 5. Ratio = "
        "release seconds / one ORDER BY of the source (all QI and the SA) timed in the same process just before.",
        "",
        "| pair (A vs B) | model | A median s | B median s | A ratio | B ratio | B/A seconds | B/A ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for p in res["pairs"]:
        for k, name in (("minv", "m-inv"), ("static", "static")):
            a, b, r = p["A_summary"][k], p["B_summary"][k], p["B_over_A"][k]
            lines.append(f"| {p['label']} ({p['A'][:7]} vs {p['B'][:7]}) | {name} | {a['median_seconds']:.3f} | "
                         f"{b['median_seconds']:.3f} | {a['median_ratio']:.1f} | {b['median_ratio']:.1f} | "
                         f"{r['median_seconds']:.2f} | {r['median_ratio']:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

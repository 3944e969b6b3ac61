"""Benchmark: audit 20 naive releases of about 45,000 Adult rows each.

Goal (issue 5): the whole audit (sqlanon.audit: intersection attack, collusion,
m-invariance, the eight seed 004 comparison attacks) takes under 10 s.

Prints each check's time and ratios measured in the same run: audit time over
the goal, and over a plain scan of the four release tables (a lower bound for
anything that reads them). Writes benchmarks/results/audit.json and audit.txt.

    python benchmarks/audit.py [--releases 20] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import duckdb

import sqlanon
import sqlanon.naive as naive
from sqlanon.audit import CHECKS
from sqlanon.datasets import load_adult

QI = ["age", "sex", "race", "education", "marital_status", "native_country"]
GOAL_S = 10.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=20)
    ap.add_argument("--l", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    con = sqlanon.connect()
    con.execute(f"SET threads = {int(args.threads)}")
    load_adult(con, "adult", part="both")
    t0 = time.perf_counter()
    sizes = naive.history(
        con, "bench", "adult", args.releases, qi=QI, sa="occupation", l=args.l, seed=args.seed,
        present_pct=98, late_pct=3, update_pct=10,
    )
    t_publish = time.perf_counter() - t0
    print(f"published {args.releases} naive releases, {min(sizes)}..{max(sizes)} rows each "
          f"({sum(sizes)} rows) in {t_publish:.1f} s")

    t0 = time.perf_counter()
    for t in ("qit", "st", "membership"):
        con.execute(f"SELECT count(*), sum(hash(COLUMNS(*))) FROM sqlanon_bench_{t}").fetchall()
    t_scan = time.perf_counter() - t0

    per_check = {}
    for name, macro in CHECKS.items():
        t0 = time.perf_counter()
        n = con.execute(f"SELECT count(*) FROM {macro}('bench', ?)", [args.l]).fetchall()[0][0]
        per_check[name] = {"seconds": round(time.perf_counter() - t0, 3), "rows": n}
        print(f"  {name:<13} {per_check[name]['seconds']:6.2f} s  {n} rows")

    t0 = time.perf_counter()
    report = sqlanon.audit(con, "bench", args.l)
    t_audit = time.perf_counter() - t0
    t0 = time.perf_counter()
    n_findings = len(report.findings)
    t_fetch = time.perf_counter() - t0
    print(report.summary())
    print(f"fetching the {n_findings} findings into pandas (lazy, on first use): {t_fetch:.2f} s")
    print(f"sqlanon.audit: {t_audit:.2f} s  (goal {GOAL_S:.0f} s: ratio {t_audit / GOAL_S:.2f}; "
          f"{t_audit / t_scan:.0f}x a plain scan of the release tables, {t_scan:.3f} s)")

    result = {
        "benchmark": "audit",
        "releases": args.releases,
        "rows_per_release": {"min": min(sizes), "max": max(sizes), "total": sum(sizes)},
        "l": args.l,
        "threads": args.threads,
        "publish_seconds": round(t_publish, 2),
        "scan_seconds": round(t_scan, 3),
        "checks": per_check,
        "audit_seconds": round(t_audit, 2),
        "findings_to_pandas_seconds": round(t_fetch, 2),
        "goal_seconds": GOAL_S,
        "ratio_to_goal": round(t_audit / GOAL_S, 3),
        "ratio_to_scan": round(t_audit / t_scan, 1),
        "verdict": report.verdict,
        "n_disclosures": report.n_disclosures,
        "findings": report.counts,
        "duckdb": duckdb.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "audit.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "audit.txt").write_text(
        report.summary() + "\n"
        + "\n".join(f"{k}: {v['seconds']} s ({v['rows']} rows)" for k, v in per_check.items()) + "\n"
        + f"findings -> pandas (lazy): {t_fetch:.2f} s for {n_findings} rows\n"
        + f"audit {t_audit:.2f} s for {args.releases} releases of {min(sizes)}..{max(sizes)} rows "
        f"(goal {GOAL_S:.0f} s, ratio {t_audit / GOAL_S:.2f})\n"
    )
    print(f"wrote {out / 'audit.json'}")


if __name__ == "__main__":
    main()

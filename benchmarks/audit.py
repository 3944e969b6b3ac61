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
from sqlanon.project import Project

QI = ["age", "sex", "race", "education", "marital_status", "native_country"]
GOAL_S = 10.0


CONFIGS = {
    # QI tuples often repeat: many records cannot be linked across releases
    "qi6": QI,
    # fnlwgt makes QI tuples nearly unique: every record links, the worst case for
    # the comparison attacks (huge related-partition graph, many contained stars)
    "qi7_fnlwgt": QI + ["fnlwgt"],
}


def run(con, name: str, qi: list[str], args) -> dict:
    project = f"bench_{name}"
    t0 = time.perf_counter()
    sizes = naive.history(
        con, project, "adult", args.releases, qi=qi, sa="occupation", l=args.l, seed=args.seed,
        present_pct=98, late_pct=3, update_pct=10,
    )
    t_publish = time.perf_counter() - t0
    print(f"[{name}] QI = {', '.join(qi)}")
    print(f"published {args.releases} naive releases, {min(sizes)}..{max(sizes)} rows each "
          f"({sum(sizes)} rows) in {t_publish:.1f} s")

    t0 = time.perf_counter()
    for t in ("qit", "st", "mem"):
        con.execute(f"SELECT count(*), sum(hash(COLUMNS(*))) FROM {Project(project).ref(t)}").fetchall()
    t_scan = time.perf_counter() - t0

    per_check = {}
    for check, macro in CHECKS.items():
        t0 = time.perf_counter()
        n = con.execute(f"SELECT count(*) FROM {macro}(?, ?)", [project, args.l]).fetchall()[0][0]
        per_check[check] = {"seconds": round(time.perf_counter() - t0, 3), "rows": n}
        print(f"  {check:<13} {per_check[check]['seconds']:6.2f} s  {n} rows")

    t0 = time.perf_counter()
    report = sqlanon.audit(con, project, args.l)
    t_audit = time.perf_counter() - t0
    t0 = time.perf_counter()
    n_findings = len(report.findings)
    t_fetch = time.perf_counter() - t0
    print(report.summary())
    print(f"fetching the {n_findings} findings into pandas (lazy, on first use): {t_fetch:.2f} s")
    print(f"sqlanon.audit: {t_audit:.2f} s  (goal {GOAL_S:.0f} s: ratio {t_audit / GOAL_S:.2f}; "
          f"{t_audit / t_scan:.0f}x a plain scan of the release tables, {t_scan:.3f} s)\n")
    report.close()
    return {
        "qi": qi,
        "rows_per_release": {"min": min(sizes), "max": max(sizes), "total": sum(sizes)},
        "publish_seconds": round(t_publish, 2),
        "scan_seconds": round(t_scan, 3),
        "checks": per_check,
        "audit_seconds": round(t_audit, 2),
        "findings_to_pandas_seconds": round(t_fetch, 2),
        "ratio_to_goal": round(t_audit / GOAL_S, 3),
        "ratio_to_scan": round(t_audit / t_scan, 1),
        "verdict": report.verdict,
        "n_disclosures": report.n_disclosures,
        "n_findings": n_findings,
        "findings": report.counts,
        "comparison_attacks": report.kinds,
        "summary": report.summary(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=20)
    ap.add_argument("--l", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--config", choices=sorted(CONFIGS), action="append", help="default: all")
    args = ap.parse_args()

    con = sqlanon.connect()
    con.execute(f"SET threads = {int(args.threads)}")
    load_adult(con, "adult", part="both")
    results = {name: run(con, name, CONFIGS[name], args) for name in (args.config or CONFIGS)}

    result = {
        "benchmark": "audit",
        "releases": args.releases,
        "l": args.l,
        "threads": args.threads,
        "goal_seconds": GOAL_S,
        "configs": results,
        "duckdb": duckdb.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "audit.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = []
    for name, r in results.items():
        lines += [f"[{name}] QI = {', '.join(r['qi'])}", r["summary"]]
        lines += [f"  {k}: {v['seconds']} s ({v['rows']} rows)" for k, v in r["checks"].items()]
        lines.append(f"  findings -> pandas (lazy): {r['findings_to_pandas_seconds']} s for {r['n_findings']} rows")
        lines.append(
            f"  audit {r['audit_seconds']} s for {args.releases} releases of "
            f"{r['rows_per_release']['min']}..{r['rows_per_release']['max']} rows "
            f"(goal {GOAL_S:.0f} s, ratio {r['ratio_to_goal']})\n"
        )
    (out / "audit.txt").write_text("\n".join(lines))
    print(f"wrote {out / 'audit.json'}")


if __name__ == "__main__":
    main()

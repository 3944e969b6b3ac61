"""Counterfeit detectability over many histories (issue 19 item 2,
docs/threat_model.md "Counterfeits").

tests/test_counterfeit_detect.py checks one history per configuration; a
change to how counterfeits get their QI moves each detector by a few points
per history, which one history cannot tell from noise. This script publishes
``--seeds`` Adult m-invariance histories (2 releases each, as the test) per
configuration and scores every release with the test's detectors (learned on
half of the groups with the truth, scored on the other half): per detector
the mean excess of its precision over the counterfeit share, and per release
the best detector's excess against the test's limit (share + 5 points).

    python benchmarks/counterfeits.py            # 8 seeds, about 2 minutes
    python benchmarks/counterfeits.py --seeds 4

Writes benchmarks/results/counterfeits.json and counterfeits.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import duckdb

import sqlanon

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from test_counterfeit_detect import TOLERANCE, _check, publish  # noqa: E402

OUT = HERE / "results"
CONFIGS = [("relationship", 4), ("occupation", 5)]


def run(sa: str, m: int, seed: int) -> list[dict]:
    con = sqlanon.connect()
    n = publish(con, sa, m, releases=2, seed=seed)
    rows = []
    for r in range(1, n + 1):
        share, res, _ = _check(con, r)
        rows.append({"seed": seed, "release": r, "share": float(share),
                     "precision": {d: float(p) for d, (p, _) in res.items()}})
    con.close()
    return rows


def summary(rows: list[dict]) -> dict:
    scored = [x for x in rows if x["share"] > 0.02]  # as the test: nothing to detect below 2%
    dets = sorted(scored[0]["precision"]) if scored else []
    excess = {d: sum(x["precision"][d] - x["share"] for x in scored) / len(scored) for d in dets}
    best = [max(x["precision"][d] - x["share"] for d in dets) for x in scored]
    return {"releases": len(scored), "mean_excess": excess,
            "best_mean": sum(best) / len(best) if best else None, "best_max": max(best, default=None),
            "within_limit": sum(b <= TOLERANCE for b in best)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    args = ap.parse_args()
    t0 = time.perf_counter()
    results = {}
    for sa, m in CONFIGS:
        rows = [x for s in range(args.seeds) for x in run(sa, m, s)]
        results[f"{sa} m={m}"] = {"rows": rows, "summary": summary(rows)}
        print(f"{sa} m={m}: {json.dumps(results[f'{sa} m={m}']['summary'])}",
              flush=True)
    meta = {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "duckdb": duckdb.__version__, "seeds": args.seeds, "seconds": round(time.perf_counter() - t0, 1)}
    OUT.mkdir(exist_ok=True)
    (OUT / "counterfeits.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    lines = ["# Counterfeit detectability (benchmarks/counterfeits.py)", "",
             f"Generated {meta['date']} ({meta['machine']}, DuckDB {meta['duckdb']}, {meta['seconds']} s). "
             f"Adult m-invariance histories (sqlanon.histories, 2 releases, seeds 0-{args.seeds - 1}), scored by the "
             "detectors of tests/test_counterfeit_detect.py (each learns, on half of the groups and with the truth, "
             "the bin of one public feature with the highest counterfeit rate, and flags it on the other half). "
             "Excess: precision minus the counterfeit share, in points; the test's limit is +5. Releases with a "
             "counterfeit share of 2% or less are not scored (nothing to detect).", ""]
    for name, res in results.items():
        s = res["summary"]
        if not s["releases"]:
            lines += [f"## {name}", "", "no release with counterfeits", ""]
            continue
        lines += [f"## {name}", "",
                  "| detector | mean excess (points) |", "|---|---:|"]
        lines += [f"| {d} | {100 * v:+.1f} |" for d, v in sorted(s["mean_excess"].items(), key=lambda kv: -kv[1])]
        lines += ["", f"Best detector per release: mean {100 * s['best_mean']:+.1f}, at most "
                      f"{100 * s['best_max']:+.1f} points; {s['within_limit']} of {s['releases']} releases within "
                      "the limit.", ""]
    (OUT / "counterfeits.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()

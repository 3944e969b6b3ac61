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
For the test's ``type`` detector (married men, and how many of them a group
has) it also computes ``type_bound``: the least precision any choice of the
counterfeits' QI could leave to it, from the release's real rows, groups and
counterfeit count (docs/threat_model.md, "Why relationship m = 4 cannot meet
the limit").

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
from test_counterfeit_detect import MIN_BIN, TOLERANCE, _check, publish, type_class  # noqa: E402
from _once import warn_once  # noqa: E402

OUT = HERE / "results"
CONFIGS = [("relationship", 4), ("occupation", 5)]


def type_bound(df) -> dict:
    """The least precision that the test's ``type`` detector can be held to by
    any choice of the counterfeits' QI, given the release's real rows, its groups and its
    counterfeit count C (docs/threat_model.md, "Why relationship m = 4 cannot
    meet the limit"). Of the real rows of K, a group holds none (G0 groups),
    one (S) or two and more (P, counted as two). A fraction a of the
    counterfeits is of K; one each goes to a group without a real row of K
    (bin K#1), then (strategy B only) to a group with two (K#3, precision 1/3),
    then to a group with one (K#2: half of those rows are counterfeit; in
    strategy A the P real pairs stay in K#2 and dilute it). The other (1 - a) C
    counterfeits are in bin "other" with the R - R_K real rows not of K. The
    detector takes the bin of highest precision among those holding MIN_BIN of
    the rows; the bound is the least of that over a (grid of 1/1000) and both
    strategies. Placements beyond one counterfeit per group count as
    infeasible (they only raise a bin's precision). The model holds when
    hardly any group has two real rows of K (at most 5% of the groups: 1-3% for
    relationship); where many do (occupation: most groups hold several married
    men) their real rows dilute every bin of K, and no bound is given (None)."""
    w = 1 - df["ghost"]
    real = w - df["cf"]
    in_k, _ = type_class(df)
    per_group = real[in_k].groupby(df["group_id"][in_k]).sum().round()
    groups = df["group_id"].nunique()
    s1, p2 = int((per_group == 1).sum()), int((per_group >= 2).sum())
    g0 = groups - s1 - p2
    c, r, rk = float(df["cf"].sum()), float(real.sum()), float(real[in_k].sum())
    if not c or p2 > 0.05 * groups:
        return {"groups_without": g0, "groups_with_one": s1, "groups_with_two": p2, "bound": None}
    least = 1.0
    for i in range(1001):
        kc = i / 1000 * c
        for strat in ("A", "B"):
            u0 = min(kc, g0)
            u3 = min(kc - u0, p2) if strat == "B" else 0.0
            u2 = kc - u0 - u3
            if u2 > s1:
                continue
            bins = [((s1 - u2) + u0, u0), (2 * u2 + 2 * (p2 - u3), u2), (3 * u3, u3),
                    (r - rk + c - kc, c - kc)]
            least = min(least, max((cf / rows for rows, cf in bins if rows and rows >= MIN_BIN * (c + r)),
                                   default=0.0))
    return {"groups_without": g0, "groups_with_one": s1, "groups_with_two": p2, "bound": least}


def run(sa: str, m: int, seed: int) -> list[dict]:
    con = sqlanon.connect()
    n = publish(con, sa, m, releases=2, seed=seed)
    rows = []
    for r in range(1, n + 1):
        share, res, df = _check(con, r)
        rows.append({"seed": seed, "release": r, "share": float(share),
                     "precision": {d: float(p) for d, (p, _) in res.items()}, "type_bound": type_bound(df)})
    con.close()
    return rows


def summary(rows: list[dict]) -> dict:
    scored = [x for x in rows if x["share"] > 0.02]  # as the test: nothing to detect below 2%
    dets = sorted(scored[0]["precision"]) if scored else []
    excess = {d: sum(x["precision"][d] - x["share"] for x in scored) / len(scored) for d in dets}
    best = [max(x["precision"][d] - x["share"] for d in dets) for x in scored]
    bound = [x["type_bound"]["bound"] - x["share"] for x in scored if x["type_bound"]["bound"] is not None]
    return {"releases": len(scored), "mean_excess": excess,
            "type_bound_mean": sum(bound) / len(bound) if bound else None,
            "type_bound_min": min(bound, default=None), "type_bound_releases": len(bound),
            "best_mean": sum(best) / len(best) if best else None, "best_max": max(best, default=None),
            "within_limit": sum(b <= TOLERANCE for b in best)}


def main() -> None:
    warn_once()
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
                      "the limit."]
        if s["type_bound_mean"] is None:
            lines += ["", "No bound for `type` here: most groups hold two or more real rows of its class, which "
                          "dilute its bins (`type_bound`)."]
        else:
            lines += ["", f"In the {s['type_bound_releases']} releases where hardly any group holds two real rows of "
                          "its class: for any choice of the counterfeits' QI, the bin of `type` with the highest "
                          "counterfeit rate among those holding 2% of the rows is at least "
                          f"{100 * s['type_bound_mean']:+.1f} points over the share on average, and at least "
                          f"{100 * s['type_bound_min']:+.1f} in every one (`type_bound`, from each release's real "
                          "rows, groups and counterfeit count; docs/threat_model.md, \"Why relationship m = 4 "
                          "cannot meet the limit\"). The learned detector finds that bin up to noise."]
        lines += [""]
    (OUT / "counterfeits.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()

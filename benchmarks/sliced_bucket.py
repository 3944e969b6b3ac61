"""(tau, m)-slicedBucket on seed 003's own protocol (§6), beside sqlanon's
m-invariance and a tau-safety-style baseline on the same histories.

History: benchmarks/_seed003.py (30,000 Adult persons, then per release 1,000
re-inserted, 3,500 deleted, 1,000 updated, 4,000 inserted; 20 releases). QI
age, sex and fnlwgt as the zip-like attribute (Adult has no zip code; fnlwgt,
the census weight, is a 5-6 digit number almost unique per person, as zip
codes are in seed 003's example; docs/sliced_bucket.md), SA occupation (14
values). Models: ``sliced-bucket`` (tau = 3, cach = 3, our default; and
cach = 1, seed 003's Algorithm 2), ``m-invariance``
(eligibility optimal) and ``tau-safety`` (m-invariance with eligibility
random: counterfeits of random values, seed 000's reading of tau-safety).

Per release: counterfeits and how many of them are ghosts (a counterfeit with a
person's QI standing for its earlier or unplaced version), the Cach (held back:
in the source and no row at all; m-invariance's column counts its eligibility's
deletions), updates held over (published with their previous value), NCP (seed 003 eq. 4-6, the
release's grouping), KL-divergence (eq. 7: the published real records' (QI,
SA) distribution against Anatomy's reconstruction from the QI and sensitive
tables, counterfeits included) and query error (eq. 8: 200 seeded COUNT
queries at 10% selectivity over the source, estimated from the QI and
sensitive tables) at releases 1, 2, 5, 10, 15 and 20, and seconds. Time: the
sliced-bucket m = 5 history once more, three times with nothing else in the
process, median per release (release 20 / release 2).

    .venv/bin/python benchmarks/sliced_bucket.py            # about 15 minutes
    .venv/bin/python benchmarks/sliced_bucket.py --quick    # m = 5 only, 6 releases

Writes benchmarks/results/sliced_bucket.{json,md} and sliced_bucket_*.png.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import duckdb

import _seed003
import sqlanon
from _once import warn_once
from sqlanon import Publisher

OUT = Path(__file__).parent / "results"
QI = ["age", "sex", "fnlwgt"]
SA = "occupation"
MODELS = {
    "sliced-bucket": dict(model="sliced-bucket"),
    "sliced-bucket cach=1": dict(model="sliced-bucket", cach=1),
    "m-invariance": dict(model="m-invariance"),
    "tau-safety": dict(model="m-invariance", eligibility="random"),
}
METRIC_RELEASES = (1, 2, 5, 10, 15, 20)


def kl(con, r: int) -> float:
    """Seed 003 eq. 7 for project p's release r (natural log)."""
    return con.execute("""
        WITH pub AS (
            SELECT s.age, s.sex, s.fnlwgt, m.occupation AS sa
            FROM sqlanon__membership_rows('p') AS m JOIN src AS s ON s.id = m.id
            WHERE m.release = $r AND NOT m.is_counterfeit
        ), p AS (
            SELECT age, sex, fnlwgt, sa, count(*) / (SELECT count(*) FROM pub) AS p FROM pub GROUP BY ALL
        ), gq AS (
            SELECT group_id, age, sex, fnlwgt, count(*) AS c FROM sqlanon_p_qit WHERE release = $r GROUP BY ALL
        ), gs AS (
            SELECT group_id, occupation AS sa, count AS c FROM sqlanon_p_st WHERE release = $r
        ), gz AS (
            SELECT group_id, sum(c) AS z FROM gs GROUP BY 1
        ), ps AS (
            SELECT gq.age, gq.sex, gq.fnlwgt, gs.sa, sum(gq.c * gs.c / gz.z) / (SELECT sum(z) FROM gz) AS ps
            FROM gq JOIN gs USING (group_id) JOIN gz USING (group_id) GROUP BY ALL
        )
        SELECT sum(p * ln(p / ps)) FROM p JOIN ps USING (age, sex, fnlwgt, sa)""", {"r": r}).fetchone()[0]


def query_error(con, r: int, n: int = 200, selectivity: float = 0.1, seed: int = 0) -> float:
    """Seed 003 eq. 8: mean |estimate - count| / count over the queries that
    select some row of the source; predicates from the macro of
    sqlanon_query_error (the same queries for every model at a release)."""
    con.execute("CREATE OR REPLACE TEMP TABLE qp AS SELECT * FROM sqlanon__query_error_predicates("
                "'src', ?, ?, ?, ?, ?)", [QI, SA, n, selectivity, seed])
    return con.execute("""
        WITH truth AS (
            SELECT a.query, count(*) AS n
            FROM src AS s
            JOIN qp AS a ON a.col = 'age' AND a.v = s.age::VARCHAR
            JOIN qp AS b ON b.query = a.query AND b.col = 'sex' AND b.v = s.sex
            JOIN qp AS c ON c.query = a.query AND c.col = 'fnlwgt' AND c.v = s.fnlwgt::VARCHAR
            JOIN qp AS d ON d.query = a.query AND d.col = 'occupation' AND d.v = s.occupation
            GROUP BY 1
        ), gq AS (
            SELECT a.query, x.group_id, count(*) AS c
            FROM sqlanon_p_qit AS x
            JOIN qp AS a ON a.col = 'age' AND a.v = x.age::VARCHAR
            JOIN qp AS b ON b.query = a.query AND b.col = 'sex' AND b.v = x.sex
            JOIN qp AS c ON c.query = a.query AND c.col = 'fnlwgt' AND c.v = x.fnlwgt::VARCHAR
            WHERE x.release = $r
            GROUP BY ALL
        ), gs AS (
            SELECT d.query, s.group_id, sum(s.count) AS c
            FROM sqlanon_p_st AS s JOIN qp AS d ON d.col = 'occupation' AND d.v = s.occupation
            WHERE s.release = $r
            GROUP BY ALL
        ), gz AS (
            SELECT group_id, sum(count) AS z FROM sqlanon_p_st WHERE release = $r GROUP BY 1
        ), est AS (
            SELECT gq.query, sum(gq.c * gs.c / gz.z) AS e
            FROM gq JOIN gs USING (query, group_id) JOIN gz USING (group_id) GROUP BY 1
        )
        SELECT avg(abs(coalesce(est.e, 0) - truth.n) / truth.n) FROM truth LEFT JOIN est USING (query)""",
                       {"r": r}).fetchone()[0]


def run(model: str, m: int, releases: int, seed: int, metrics: bool = True) -> list[dict]:
    con = sqlanon.connect()
    n_pool, next_id = _seed003.start(con, seed)
    pub = Publisher(con, "p", source="src", id="id", qi=QI, sa=SA, m=m, seed=seed, **MODELS[model])
    out = []
    for r in range(1, releases + 1):
        if r > 1:
            next_id = _seed003.edit(con, r, seed, n_pool, next_id)
        res = pub.release()
        # held back: in the source and no row of the release at all (the Cach;
        # m-invariance: its eligibility's deletions), not shown by a ghost
        absent = con.execute("""SELECT count(*) FROM sqlanon_private.p__held AS h WHERE h.release = $r
                                AND h.id NOT IN (SELECT id FROM sqlanon__membership_rows('p')
                                                 WHERE release = $r AND id IS NOT NULL)""", {"r": r}).fetchone()[0]
        # res.held: persons with no real row (the Cach: no row at all, and
        # re-inserted persons shown by a ghost); res.suppressed: updates held
        # over (published with their previous value)
        ghosts = con.execute("SELECT count(*) FROM sqlanon__membership_rows('p') WHERE release = $r "
                             "AND is_counterfeit AND id IS NOT NULL", {"r": r}).fetchone()[0]
        row = {"model": model, "m": m, "release": r, "source": res.published - res.counterfeits + res.held,
               "published": res.published, "counterfeits": res.counterfeits, "ghosts": ghosts, "cach": absent,
               "held_over": res.suppressed, "ncp": res.ncp, "seconds": res.seconds}
        if metrics and r in METRIC_RELEASES:
            row["kl"] = kl(con, r)
            row["query_error"] = query_error(con, r, seed=r)
        out.append(row)
    con.close()
    return out


def timing(m: int, releases: int, seed: int, repeats: int = 3, model: str = "sliced-bucket") -> dict:
    runs = [run(model, m, releases, seed, metrics=False) for _ in range(repeats)]
    med = [statistics.median(col) for col in zip(*[[x["seconds"] for x in xs] for xs in runs])]
    src = [x["source"] for x in runs[0]]
    return {"model": model, "m": m, "repeats": repeats, "seconds": med, "source": src,
            "runs": [[x["seconds"] for x in xs] for xs in runs], "r_last_r2": med[-1] / med[1],
            "per_row_r_last_r2": (med[-1] / src[-1]) / (med[1] / src[1])}


def write_md(d: dict) -> None:
    rows, t = d["rows"], d["timing"]
    last = max(x["release"] for x in rows)
    lines = [
        "# (tau, m)-slicedBucket on seed 003's protocol",
        "",
        f"Measured on {d['machine']} (DuckDB {d['duckdb']}) by `benchmarks/sliced_bucket.py`"
        f"{' --quick' if d['quick'] else ''}: Adult, seed 003 §6's history (benchmarks/_seed003.py), {last} releases,"
        " QI age, sex and fnlwgt (the zip-like attribute), SA occupation. sliced-bucket with tau = 3 and cach = 3"
        " (the default) or 1 (seed 003's Algorithm 2);"
        " m-invariance with eligibility optimal; tau-safety = m-invariance with eligibility random.",
        "",
        "## Per model and m: the last release, and means over the releases",
        "",
        "| model | m | counterfeits (last) | of them ghosts | Cach (last) | held over (last) | NCP % (mean) | KL (mean) | query error (mean) | s per release (mean) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model in MODELS:
        for m in d["ms"]:
            xs = [x for x in rows if x["model"] == model and x["m"] == m]
            if not xs:
                continue
            lx = xs[-1]
            met = [x for x in xs if "kl" in x]
            lines.append(f"| {model} | {m} | {lx['counterfeits']} | {lx['ghosts']} | {lx['cach']} | {lx['held_over']} | "
                         f"{statistics.mean(x['ncp'] for x in xs):.1f} | {statistics.mean(x['kl'] for x in met):.3f} | "
                         f"{statistics.mean(x['query_error'] for x in met):.3f} | "
                         f"{statistics.mean(x['seconds'] for x in xs):.2f} |")
    m0 = 5 if 5 in d["ms"] else d["ms"][0]
    lines += ["", f"## Per release, m = {m0}", "",
              "| release | model | source rows | counterfeits | of them ghosts | Cach | held over | NCP % | KL | query error | s |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in range(1, last + 1):
        for model in MODELS:
            x = next((y for y in rows if y["model"] == model and y["m"] == m0 and y["release"] == r), None)
            if x is None:
                continue
            kl_ = f"{x['kl']:.3f}" if "kl" in x else ""
            qe = f"{x['query_error']:.3f}" if "query_error" in x else ""
            lines.append(f"| {r} | {model} | {x['source']} | {x['counterfeits']} | {x['ghosts']} | {x['cach']} | {x['held_over']} | "
                         f"{x['ncp']:.1f} | {kl_} | {qe} | {x['seconds']:.2f} |")
    n = len(t["seconds"])
    lines += ["", f"## Time (m = {t['m']}, {t['repeats']} runs each, median per release; nothing else running)", "",
              "| release | " + " | ".join(str(i + 1) for i in range(n)) + " |",
              "|---|" + "---|" * n,
              "| source rows | " + " | ".join(str(x) for x in t["source"]) + " |"]
    for tt in [t] + d.get("timing_more", []):
        lines.append(f"| {tt['model']} s | " + " | ".join(f"{s:.2f}" for s in tt["seconds"]) + " |")
    lines.append("")
    for tt in [t] + d.get("timing_more", []):
        lines.append(f"{tt['model']}: release {n} / release 2 = **{tt['r_last_r2']:.2f}**; per source row "
                     f"{tt['per_row_r_last_r2']:.2f} (the protocol grows the source "
                     f"{t['source'][-1] / t['source'][1]:.2f}x from release 2 to {n}).  ")
    lines.append("")
    lines += d.get("notes", [])
    (OUT / "sliced_bucket.md").write_text("\n".join(lines) + "\n")


def plot(d: dict) -> None:
    from matplotlib.figure import Figure

    rows = d["rows"]
    m0 = 5 if 5 in d["ms"] else d["ms"][0]
    fig = Figure(figsize=(13, 7))
    axes = fig.subplots(2, 3)
    for model in MODELS:
        xs = [x for x in rows if x["model"] == model and x["m"] == m0]
        axes[0][0].plot([x["release"] for x in xs], [x["ncp"] for x in xs], marker=".", label=model)
        axes[0][1].plot([x["release"] for x in xs], [x["counterfeits"] for x in xs], marker=".", label=model)
        met = [x for x in xs if "kl" in x]
        axes[0][2].plot([x["release"] for x in met], [x["kl"] for x in met], marker="o", label=model)
        per_m = [(m, [x for x in rows if x["model"] == model and x["m"] == m]) for m in d["ms"]]
        per_m = [(m, xs_) for m, xs_ in per_m if xs_]
        axes[1][0].plot([m for m, _ in per_m], [statistics.mean(x["ncp"] for x in xs_) for _, xs_ in per_m],
                        marker="o", label=model)
        axes[1][1].plot([m for m, _ in per_m],
                        [statistics.mean(x["query_error"] for x in xs_ if "query_error" in x) for _, xs_ in per_m],
                        marker="o", label=model)
        axes[1][2].plot([m for m, _ in per_m], [statistics.mean(x["seconds"] for x in xs_) for _, xs_ in per_m],
                        marker="o", label=model)
    titles = [(f"NCP % per release (m = {m0}; Fig. 5A)", "release"),
              (f"counterfeits per release (m = {m0}; Fig. 8)", "release"),
              (f"KL-divergence (m = {m0}; Fig. 6)", "release"),
              ("mean NCP % vs m (Fig. 5B)", "m"), ("mean query error vs m (Fig. 7A)", "m"),
              ("mean seconds per release vs m (Fig. 9)", "m")]
    for ax, (title, xl) in zip([a for row in axes for a in row], titles):
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xl)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT / "sliced_bucket.png", dpi=90)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="m = 5 only, 6 releases")
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    warn_once()
    releases, ms = (6, [5]) if a.quick else (20, [4, 5, 6, 8])
    t0 = time.time()
    rows = []
    for m in ms:
        for model in MODELS:
            rows += run(model, m, releases, a.seed)
            print(f"{model} m={m}: {time.time() - t0:.0f} s", flush=True)
    d = {"machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores", "duckdb": duckdb.__version__,
         "quick": a.quick, "ms": ms, "rows": rows, "timing": timing(5, releases, a.seed),
         "timing_more": [timing(5, releases, a.seed, model="m-invariance")]}
    if not a.quick:
        (OUT / "sliced_bucket.json").write_text(json.dumps(d, indent=1) + "\n")
    write_md(d)
    plot(d)
    print((OUT / "sliced_bucket.md").read_text())


if __name__ == "__main__":
    main()

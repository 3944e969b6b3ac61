"""Suppressing m-invariance's lone persons (issue 32 item 3): what it could
save, measured on our own run of the long-run histories (benchmarks/longrun.py:
its history functions, seeds, QI, SA occupation, m = 5, anatomy output).

A carried group down to one real row (a *lone* person p, no ghost) publishes
p and |S| - 1 = 4 counterfeits; leaving p out of the release (suppressed: in
the source, no row) would save those for one stale row. Per release (every
5th and the last) of the unchanged publisher:

- ``lone``: such groups (one real row, no ghost), their persons' share of the
  source and their counterfeits' share of all counterfeits;
- ``all``: the fake share if every lone person were left out (its group's
  counterfeits with it): the ceiling of the idea, whatever the safety rule;
- ``absent``: the same for the lone persons an absence-reading adversary
  (SPEC §6b: a present person that matches no group gets the values held
  back this release) would still give their whole signature: S within the
  values of the other lone persons left out plus the values held back, to a
  fixed point. (Not safe as a rule: whether p may go depends on the other
  persons' values; docs/threat_model.md, "Rejected: suppressing lone persons".)
- ``covered``: the lone persons whose exact QI tuple other groups publish
  anyway, on rows of real persons or ghosts (not counterfeits), in groups
  whose signatures together hold S: leaving them out changes nobody's
  candidates (an upper bound of the safe rule, which can only count the
  carried groups known before step 6).

    .venv/bin/python benchmarks/minv_lone.py                       # 3 histories, 50 releases, size 1
    .venv/bin/python benchmarks/minv_lone.py --size 0.3 --releases 20

Writes benchmarks/results/minv_lone.json and .md (``--out``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import longrun as L

import sqlanon


def measure(con, r: int, published: int, counterfeits: int) -> dict:
    """Release ``r`` of project p against the source src: the columns above."""
    QI, SA = L.QI, L.SA
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE lone_mem AS SELECT * FROM sqlanon__membership_rows('p') WHERE release = {r}"
    )
    con.execute(f"""CREATE OR REPLACE TEMP TABLE lone_gs AS
        SELECT group_id, count(*) FILTER (WHERE NOT is_counterfeit) AS r,
               count(*) FILTER (WHERE is_counterfeit AND id IS NULL) AS c,
               count(*) FILTER (WHERE is_counterfeit AND id IS NOT NULL) AS gh,
               list(DISTINCT {SA} ORDER BY {SA}) AS sig
        FROM lone_mem GROUP BY group_id""")
    con.execute(f"""CREATE OR REPLACE TEMP TABLE lone_p AS
        SELECT m.id, m.group_id, m.{SA} AS sa, g.sig, g.c, {", ".join("s." + c for c in QI)}
        FROM lone_mem AS m JOIN lone_gs AS g USING (group_id) JOIN src AS s ON s.id = m.id
        WHERE g.r = 1 AND g.gh = 0 AND NOT m.is_counterfeit""")
    lone = con.execute("SELECT id, sa, sig, c FROM lone_p").fetchall()
    held = {
        v
        for (v,) in con.execute(
            f"SELECT DISTINCT {SA} FROM src WHERE id NOT IN (SELECT id FROM lone_mem WHERE NOT is_counterfeit)"
        ).fetchall()
    }
    covered = dict(
        con.execute(f"""
        WITH rows_now AS (
            SELECT m.group_id, {", ".join("s." + c for c in QI)}
            FROM lone_mem AS m JOIN src AS s ON s.id = m.id WHERE m.id IS NOT NULL)
        SELECT l.id, list_has_all(list_distinct(flatten(list(g.sig))), any_value(l.sig))
        FROM lone_p AS l
        JOIN rows_now AS o ON o.group_id <> l.group_id
         AND {" AND ".join(f"o.{c} IS NOT DISTINCT FROM l.{c}" for c in QI)}
        JOIN lone_gs AS g ON g.group_id = o.group_id AND NOT (g.r = 1 AND g.gh = 0)
        GROUP BY l.id""").fetchall()
    )
    # the absence reading: keep the lone persons whose signature is within the
    # values of the others kept plus the values held back, to a fixed point
    x = {i: (sa, set(sig), c) for i, sa, sig, c in lone}
    while True:
        cnt = Counter(v[0] for v in x.values())
        drop = [
            i
            for i, (sa, sig, _) in x.items()
            if not all(cnt[v] - (v == sa) > 0 or v in held for v in sig)
        ]
        if not drop:
            break
        for i in drop:
            del x[i]
    n = con.execute("SELECT count(*) FROM src").fetchall()[0][0]

    def fake(persons: int, cf: int) -> float:
        return 100 * (counterfeits - cf) / (published - cf - persons)

    lc = sum(c for *_, c in lone)
    cov = [(i, c) for i, _, _, c in lone if covered.get(i)]
    return {
        "release": r,
        "source": n,
        "published": published,
        "counterfeits": counterfeits,
        "fake": 100 * counterfeits / published,
        "lone": len(lone),
        "lone_src": 100 * len(lone) / n,
        "lone_cf": lc,
        "lone_cf_share": 100 * lc / counterfeits if counterfeits else 0.0,
        "fake_all": fake(len(lone), lc),
        "absent": len(x),
        "fake_absent": fake(len(x), sum(v[2] for v in x.values())),
        "covered": len(cov),
        "fake_covered": fake(len(cov), sum(c for _, c in cov)),
    }


def run(hist: str, releases: int, scale: float, log=print) -> list[dict]:
    con = sqlanon.connect()
    pub, out = None, []
    for t, _ in enumerate(L.HISTORIES[hist](con, releases, scale), 1):
        if pub is None:
            pub = sqlanon.Publisher(
                con,
                "p",
                source="src",
                id="id",
                qi=L.QI,
                sa=L.SA,
                seed=L.SEEDS[hist],
                **L.MODELS["m-invariance/anatomy"],
            )
        res = pub.release()
        if t % 5 == 0 or t == releases:
            row = dict(
                history=hist,
                t=t,
                **measure(con, res.release, res.published, res.counterfeits),
            )
            out.append(row)
            log(
                f"  {hist} {t}: fake {row['fake']:.1f}% lone {row['lone']} ({row['lone_src']:.2f}% of the source, "
                f"{row['lone_cf_share']:.1f}% of the counterfeits) -> all {row['fake_all']:.1f}%, "
                f"absent {row['absent']} {row['fake_absent']:.1f}%, covered {row['covered']} {row['fake_covered']:.1f}%"
            )
    con.close()
    return out


def markdown(d: dict) -> str:
    lines = [
        "# Suppressing m-invariance's lone persons: the ceiling (issue 32 item 3)",
        "",
        (
            f"`benchmarks/minv_lone.py` on {d['machine']}, {d['releases']} releases, size {d['size']}, "
            f"{d['minutes']:.0f} min wall (the machine shared). Module docstring: the columns; "
            'docs/threat_model.md, "Rejected: suppressing lone persons": the design and why.'
        ),
        "",
        (
            "| history | release | fake % | lone persons | % of source | % of counterfeits | fake % all left out "
            "| absent-safe | fake % | tuple-covered | fake % |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in d["rows"]:
        lines.append(
            f"| {r['history']} | {r['t']} | {r['fake']:.1f} | {r['lone']} | {r['lone_src']:.2f} | "
            f"{r['lone_cf_share']:.1f} | {r['fake_all']:.1f} | {r['absent']} | {r['fake_absent']:.1f} | "
            f"{r['covered']} | {r['fake_covered']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", default="demo,seed003,updates")
    ap.add_argument("--releases", type=int, default=50)
    ap.add_argument("--size", type=float, default=1.0)
    ap.add_argument(
        "--out",
        default=str(Path(__file__).resolve().parent / "results" / "minv_lone.json"),
    )
    a = ap.parse_args()
    t0 = time.time()
    rows = []
    for h in a.history.split(","):
        if h not in L.HISTORIES:
            raise SystemExit(f"unknown history {h!r}; use {', '.join(L.HISTORIES)}")
        rows += run(h, a.releases, a.size)
    d = {
        "machine": f"{platform.machine()}, DuckDB {sqlanon.connect().execute('SELECT version()').fetchone()[0]}",
        "releases": a.releases,
        "size": a.size,
        "minutes": (time.time() - t0) / 60,
        "rows": rows,
    }
    out = Path(a.out)
    out.write_text(json.dumps(d, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(d))
    print(markdown(d))


if __name__ == "__main__":
    main()

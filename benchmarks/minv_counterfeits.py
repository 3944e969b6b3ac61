"""Where m-invariance's (or sliced-bucket's) pure counterfeits come from (issue
32 item 3): per release of the long-run histories (benchmarks/longrun.py: its
history functions, seeds, QI, SA occupation, m = 5; ``--model``: one of
longrun's models, default m-invariance with the anatomy output), the
counterfeits that are not ghosts (id NULL), split by the step that made them,
read from the private membership and entries after each release (no library
code is changed for it):

- ``vac``: in a carried group (a group of release r - 1 too): step 4(c), a
  vacancy no survivor, updated/re-inserted or new person of its value filled;
  split by what the slot (group, value) held in release r - 1: ``v_old`` a
  pure counterfeit already (a vacancy carried on), ``v_away`` a real row of a
  person with no row now (departed or away), ``v_moved`` a real row of a
  person with a real row elsewhere now (sliced-bucket: step 6h's plain
  counterfeit in a moved person's old slot), ``v_ghost`` a ghost or a real row
  of a person shown by a ghost now, ``v_new`` nothing (the slot is new to the
  group: step 3b's merge);
- ``tgt``: in a new group holding an updated or re-inserted person (an entry
  before release r) or a ghost: step 6's target-signature groups;
- ``elig``: in a new group of new persons only: step 7's eligibility plan
  (step 8 groups the pool);

and ``ghosts`` (counterfeits with an id), ``fake`` (all counterfeits),
``published`` rows, ``held`` source rows without a real row (ReleaseResult); ``dead``: carried groups with no real member (ghosts and
counterfeits only) and ``dead_cf`` their pure counterfeits; ``one``: carried
groups with one real member, ``one_cf`` theirs; ``tg_groups`` / ``tg_persons``:
step 6's groups and the updated/re-inserted persons in them.

    .venv/bin/python benchmarks/minv_counterfeits.py --size 0.3 --releases 20
    .venv/bin/python benchmarks/minv_counterfeits.py --history demo --releases 50

Writes benchmarks/results/minv_counterfeits.json and .md (``--out``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import sqlanon
from longrun import HISTORIES, MODELS, QI, SA, SEEDS, TABLE_RELEASES
from sqlanon import Publisher

OUT = Path(__file__).resolve().parent / "results" / "minv_counterfeits.json"
COLS = ("published", "fake", "ghosts", "vac", "tgt", "elig", "dead", "dead_cf", "one", "one_cf",
        "tg_groups", "tg_persons", "v_old", "v_away", "v_moved", "v_ghost", "v_new")


def sources(con, r: int) -> dict:
    """Release r of project p: its pure counterfeits by source (module docstring)."""
    row = con.execute("""
        WITH cur AS (SELECT id, group_id, is_counterfeit FROM sqlanon__membership_rows('p') WHERE release = $r),
        prevg AS (SELECT DISTINCT group_id FROM sqlanon__membership_rows('p') WHERE release = $r - 1),
        old AS (SELECT DISTINCT id FROM sqlanon_private.p__entries WHERE release < $r),
        g AS (
            SELECT c.group_id, c.group_id IN (SELECT group_id FROM prevg) AS carried,
                   count(*) FILTER (WHERE NOT c.is_counterfeit) AS nreal,
                   count(*) FILTER (WHERE c.is_counterfeit AND c.id IS NULL) AS npure,
                   count(*) FILTER (WHERE c.is_counterfeit AND c.id IS NOT NULL) AS nghost,
                   count(*) FILTER (WHERE NOT c.is_counterfeit AND c.id IN (SELECT id FROM old)) AS nold
            FROM cur AS c GROUP BY c.group_id),
        prev AS (
            SELECT group_id, sa, bool_or(is_counterfeit AND id IS NULL) AS pure,
                   bool_or(is_counterfeit AND id IS NOT NULL) AS ghost, any_value(id) FILTER (WHERE NOT is_counterfeit) AS pid
            FROM (SELECT group_id, {sa} AS sa, id, is_counterfeit FROM sqlanon__membership_rows('p') WHERE release = $r - 1)
            GROUP BY ALL),
        slot AS (
            SELECT CASE WHEN p.group_id IS NULL THEN 'new' WHEN p.pure THEN 'old' WHEN p.ghost THEN 'ghost'
                        WHEN p.pid IN (SELECT id FROM cur WHERE NOT is_counterfeit) THEN 'moved'
                        WHEN p.pid IN (SELECT id FROM cur WHERE is_counterfeit) THEN 'ghost' ELSE 'away' END AS k
            FROM (SELECT group_id, {sa} AS sa FROM sqlanon__membership_rows('p')
                  WHERE release = $r AND is_counterfeit AND id IS NULL AND group_id IN (SELECT group_id FROM prevg)) AS c
            LEFT JOIN prev AS p USING (group_id, sa))
        SELECT (SELECT count(*) FROM cur), (SELECT count(*) FROM cur WHERE is_counterfeit),
               sum(nghost),
               sum(npure) FILTER (WHERE carried),
               sum(npure) FILTER (WHERE NOT carried AND (nold > 0 OR nghost > 0)),
               sum(npure) FILTER (WHERE NOT carried AND nold = 0 AND nghost = 0),
               count(*) FILTER (WHERE carried AND nreal = 0), sum(npure) FILTER (WHERE carried AND nreal = 0),
               count(*) FILTER (WHERE carried AND nreal = 1), sum(npure) FILTER (WHERE carried AND nreal = 1),
               count(*) FILTER (WHERE NOT carried AND (nold > 0 OR nghost > 0)),
               sum(nold) FILTER (WHERE NOT carried),
               (SELECT count(*) FILTER (WHERE k = 'old') FROM slot), (SELECT count(*) FILTER (WHERE k = 'away') FROM slot),
               (SELECT count(*) FILTER (WHERE k = 'moved') FROM slot), (SELECT count(*) FILTER (WHERE k = 'ghost') FROM slot),
               (SELECT count(*) FILTER (WHERE k = 'new') FROM slot)
        FROM g""".replace("{sa}", SA), {"r": r}).fetchall()[0]
    return {k: int(v or 0) for k, v in zip(COLS, row)}


def run(hist: str, releases: int, scale: float, model: str = "m-invariance/anatomy", log=print) -> list[dict]:
    con = sqlanon.connect()
    pub, rows = None, []
    for t, _ in enumerate(HISTORIES[hist](con, releases, scale), 1):
        if pub is None:
            pub = Publisher(con, "p", source="src", id="id", qi=QI, sa=SA, seed=SEEDS[hist],
                            **MODELS[model])
        t0 = time.perf_counter()
        res = pub.release()
        row = {"t": t, "source": con.execute("SELECT count(*) FROM src").fetchone()[0],
               "seconds": round(time.perf_counter() - t0, 2), "held": res.held,
               "suppressed": getattr(res, "suppressed", 0) or 0, **sources(con, res.release)}
        rows.append(row)
        if t in TABLE_RELEASES or t == releases or t % 5 == 0:
            log(f"  {hist} {t}: {row}")
    con.close()
    return rows


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}" if b else "-"


def render(res: dict) -> str:
    out = [f"# Where {res.get('model', 'm-invariance')}'s pure counterfeits come from (issue 32 item 3)", "",
           f"`benchmarks/minv_counterfeits.py {res['args']}`; module docstring defines the columns. "
           "Shares are % of published rows; vac / tgt / elig are pure counterfeits (id NULL) by step.", ""]
    for hist, rows in res["histories"].items():
        out += [f"## History `{hist}`", "",
                "| release | published | held % | fake % | ghosts % | pure % | vac (4c) | tgt (6) | elig (7) "
                "| dead groups | their cf | 1-real groups | their cf | step-6 groups | their persons "
                "| vac: old | away | moved | ghost | new | suppressed % |",
                "|" + "---|" * 21]
        for r in rows:
            pure = r["vac"] + r["tgt"] + r["elig"]
            out.append(f"| {r['t']} | {r['published']} | {pct(r.get('held', 0), r['source'])} | {pct(r['fake'], r['published'])} | "
                       f"{pct(r['ghosts'], r['published'])} | {pct(pure, r['published'])} | {r['vac']} | "
                       f"{r['tgt']} | {r['elig']} | {r['dead']} | {r['dead_cf']} | {r['one']} | {r['one_cf']} | "
                       f"{r['tg_groups']} | {r['tg_persons']} | {r.get('v_old', '')} | {r.get('v_away', '')} | "
                       f"{r.get('v_moved', '')} | {r.get('v_ghost', '')} | {r.get('v_new', '')} | "
                       f"{pct(r.get('suppressed', 0), r['source'])} |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=20)
    ap.add_argument("--size", type=float, default=0.3)
    ap.add_argument("--history", default="demo,seed003", help=f"comma-separated, of {', '.join(HISTORIES)}")
    ap.add_argument("--model", default="m-invariance/anatomy", choices=sorted(MODELS))
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    res = {"args": f"--model {a.model} --history {a.history} --size {a.size} --releases {a.releases}",
           "model": a.model, "histories": {}}
    for h in a.history.split(","):
        res["histories"][h] = run(h, a.releases, a.size, a.model)
        a.out.write_text(json.dumps(res, indent=1))
        a.out.with_suffix(".md").write_text(render(res))


if __name__ == "__main__":
    main()

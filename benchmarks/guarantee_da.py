"""Dynamic Anatomy against the SPEC §6b adversary on Adult histories (issue 13,
build item 4).

Histories: adult.data (complete rows), QI age, sex, race, marital_status, SA
occupation, l = 4, 7 releases. Release 1 = 6,000 random persons of an 8,000
pool; each later release deletes 5 % of the present persons, re-inserts 30 % of
the deleted ones (with the tuple they had), inserts 250 new persons, updates the
occupation of 4 % of the present persons and flips 30 % of the updated ones back
to their earlier value (seeded; QI tuples are shared by many persons).

Models: ``dynamic-anatomy`` as it is now ("after"), ``dynamic-anatomy`` with
the templates of the last commit before issue 13's change ("before": Definition 6
against the previous release only, extracted with ``git show``), and static
``anatomy`` (the unsafe baseline). The reference adversary is
tests/adversary_da.py (QI linking, presence, intersections over every run of
releases, restarted at every release); three ways to read absence:

* ``no-absence``: a person matching no group learns nothing that release;
* ``absence``: its candidates are the values suppressed that release;
* ``absence, published``: the same, counted from the release in which the person
  is first published (what dynamic Anatomy guarantees; the difference is pool
  leftovers exposed before their first publication).

Writes benchmarks/results/guarantee_dynamic_anatomy.md (+ .json).
Run: .venv/bin/python benchmarks/guarantee_da.py [--quick]"""

from __future__ import annotations

import json
import pathlib
import random
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import sqlanon  # noqa: E402
from adversary_da import narrowed, narrowest, read_history  # noqa: E402
from sqlanon import Publisher  # noqa: E402
from sqlanon.datasets import load_adult  # noqa: E402
from sqlanon.errors import SqlanonError  # noqa: E402

OUT = ROOT / "benchmarks" / "results"
QI = ["age", "sex", "race", "marital_status"]
SA = "occupation"
L = 4
BEFORE = "1bb01d7"  # last commit before dynamic-anatomy compared with every earlier release


def histories(rows, seed, n_releases=7, n_first=6000):
    rnd = random.Random(seed)
    ids = sorted(rows)
    rnd.shuffle(ids)
    values = sorted({r[-1] for r in rows.values()})
    cur = {i: rows[i] for i in ids[:n_first]}
    fresh = ids[n_first:]
    gone, old = {}, {}
    out = [dict(cur)]
    for _ in range(n_releases - 1):
        present = sorted(cur)
        for i in rnd.sample(present, len(present) // 20):
            gone[i] = cur.pop(i)
        for i in rnd.sample(sorted(gone), int(len(gone) * 0.3)):
            cur[i] = gone.pop(i)
        for _ in range(min(250, len(fresh))):
            i = fresh.pop()
            cur[i] = rows[i]
        for i in rnd.sample(sorted(old), int(len(old) * 0.3)):
            if i in cur and old[i]:
                cur[i] = (*cur[i][:-1], old[i].pop())
        present = sorted(cur)
        for i in rnd.sample(present, len(present) // 25):
            v = rnd.choice([x for x in values if x != cur[i][-1]])
            old.setdefault(i, []).append(cur[i][-1])
            cur[i] = (*cur[i][:-1], v)
        out.append(dict(cur))
    return out


def run(con, project, model, hist, templates_dir=None):
    sources, stats = [], []
    for cur in hist:
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM adult WHERE false")
        rows = [(i, *t) for i, t in sorted(cur.items())]
        con.executemany(f"INSERT INTO src (id, {', '.join(QI)}, {SA}) VALUES (?, ?, ?, ?, ?, ?)", rows)
        try:
            r = Publisher(con, project, source="src", id="id", qi=QI, sa=SA, model=model, l=L, seed=1,
                          templates_dir=templates_dir, allow_shared=True).release()  # independent experiments over the same persons (issue 33)
        except SqlanonError as exc:  # the release gate refuses what the old templates would leak: nothing published
            stats.append({"refused": str(exc).split("\n")[0][:300], "held": 0, "suppressed": 0, "dl": 0})
            continue
        sources.append(rows)
        stats.append({"held": r.held, "suppressed": r.suppressed, "dl": r.dl, "seconds": round(r.seconds, 3)})
    qit, st, presence, suppressed = read_history(con, project, sources, QI, SA)
    first = dict(con.execute("SELECT id, min(release) FROM sqlanon__membership_rows(?) GROUP BY id",
                             [project]).fetchall()) if sources else {}  # every release refused: no membership
    since = [{i: v for i, v in p.items() if i in first and first[i] <= r} for r, p in enumerate(presence, 1)]
    domain = [{v for _, v in p.values()} | set().union(*({x[1] for x in s} for s in st)) for p in presence]
    res = {}
    for mode, pres, absent in (("no-absence", presence, domain), ("absence", presence, suppressed),
                               ("absence, published", since, suppressed)):
        best = narrowest(qit, st, pres, absent)
        nw = narrowed(best, L)
        res[mode] = {"narrowed": len(nw), "to_one": sum(1 for s in nw.values() if s == 1),
                     "true_value_inside": sum(1 for i in nw if best[i][4])}
    return {"releases": stats, "adversary": res, "refused": sum("refused" in s for s in stats),
            "held": sum(s["held"] for s in stats), "suppressed": sum(s["suppressed"] for s in stats),
            "dl": sum(s["dl"] for s in stats)}


def main(quick=False):
    con = sqlanon.connect()
    load_adult(con, "adult", part="data", complete=True)
    rows = {i: t for i, *t in con.execute(f"SELECT id, {', '.join(QI)}, {SA} FROM adult WHERE id <= 8000").fetchall()}
    before = pathlib.Path(tempfile.mkdtemp()) / "t"
    (before / "anatomy").mkdir(parents=True)
    names = subprocess.run(["git", "ls-tree", "--name-only", BEFORE, "sql/anatomy/"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for n in names:
        (before / "anatomy" / pathlib.Path(n).name).write_text(
            subprocess.run(["git", "show", f"{BEFORE}:{n}"], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout)
    out = []
    for seed in (1, 2) if not quick else (1,):
        hist = histories(rows, seed)
        row = {"seed": seed, "persons": len(set().union(*hist)), "releases": len(hist)}
        for label, model, td in (("dynamic-anatomy (after)", "dynamic-anatomy", None),
                                 ("dynamic-anatomy (before)", "dynamic-anatomy", before),
                                 ("anatomy (static baseline)", "anatomy", None)):
            t0 = time.perf_counter()
            row[label] = run(con, f"g{seed}_{model.replace('-', '_')}_{'b' if td else 'a'}", model, hist, td)
            row[label]["wall_seconds"] = round(time.perf_counter() - t0, 1)
            print(seed, label, row[label]["adversary"], row[label]["held"], row[label]["suppressed"],
                  row[label]["dl"], flush=True)
        out.append(row)
    (OUT / "guarantee_dynamic_anatomy.json").write_text(json.dumps(out, indent=1))
    L_ = ["# Dynamic Anatomy against the SPEC §6b adversary (Adult, l = 4, SA occupation)", "",
          "`benchmarks/guarantee_da.py`; adversary `tests/adversary_da.py` (QI linking over every group holding",
          "the person's QI tuple, presence, intersections over every run of releases incl. restarts). Histories:",
          "7 releases, 6,000 persons at release 1 of an 8,000 pool, per release 5 % deletes, 30 % of the deleted",
          "re-inserted, 250 inserts, 4 % SA updates, 30 % of the updated flipped back. Persons narrowed to 1..3",
          "values (to one value; with a value the person really had inside). Held / suppressed: summed over the 7",
          "releases; DL: eq. 1-2 summed over the releases. Refused: releases the release gate refused (nothing",
          "published; the adversary holds the published ones): the \"before\" templates leak, and the gate, added",
          "later, is the last check of every release whatever its templates.", "",
          "| history | model | no-absence | absence | absence, from first publication | held | suppressed | DL | refused |",
          "|---|---|---|---|---|---|---|---|---|"]
    for row in out:
        for label in ("dynamic-anatomy (after)", "dynamic-anatomy (before)", "anatomy (static baseline)"):
            x = row[label]
            cells = [f"{x['adversary'][m]['narrowed']} ({x['adversary'][m]['to_one']}; {x['adversary'][m]['true_value_inside']})"
                     for m in ("no-absence", "absence", "absence, published")]
            L_.append(f"| seed {row['seed']}, {row['persons']} persons | {label} | {' | '.join(cells)} | "
                      f"{x['held']} | {x['suppressed']} | {x['dl']:,} | {x['refused']} of {row['releases']} |")
    L_ += ["", "Per release (held / suppressed / DL / seconds) in guarantee_dynamic_anatomy.json."]
    (OUT / "guarantee_dynamic_anatomy.md").write_text("\n".join(L_) + "\n")
    print("\n".join(L_))


if __name__ == "__main__":
    main("--quick" in sys.argv)

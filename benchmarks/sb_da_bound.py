"""Sliced-bucket's and dynamic Anatomy's floors on the long-run histories
(issue 32 items 2 and 3): what the m-invariance bound (benchmarks/minv_bound.py)
becomes under each model's own rules, per release.

Each floor counts present persons whose current value v cannot be published
truthfully at that release under a rule on the value sets a person may be
published with; every such person costs a stale row (held over, suppressed)
or, where the rule allows one, a ghost (a fake row). The persons' signatures
or partitions are chosen online, as in minv_bound.py: at the release that
needs them, from the first value (and, for a second set, the value that left
the first), the best m - 1 companions by the history's empirical transitions
P(b | a) (minv_bound.best_set). The histories draw a new value uniformly and
independently of the QI (q(a) = 0.60-0.68 in minv_bound.md), so no online
choice does better in expectation; the counts are one realisation.

Per history of benchmarks/longrun.py (its functions, seeds, QI, SA occupation,
m = l = 5) and per release:

- ``one``: v outside S1, the person's first set of m values (m-invariance's
  signature; dynamic Anatomy's partition value set when a person is published
  only in partitions of one multiset, as ours is). ``one_exp`` is
  minv_bound.py's expectation (sum of q(first value) over the persons whose
  value differs from their first one), for comparison;
- ``two5``, ``two6``: v outside S1 and S2, where S2 is a second set disjoint
  from S1 made when the value first leaves S1, both of s = 5 or 6 values.
  Seed 003's Definition 11 lets a person's signatures be equal or disjoint
  only, of beta = m or beta + 1 values (its §5.3, Algorithm 6); with 14
  occupations and m = 5 a person can have two distinct signatures, never
  three (3 x 5 > 14). A value outside both has no target at all: a stale row,
  not a ghost. ``two6`` is the floor for every Definition 11 publisher whose
  signatures hold at most m + 1 values; ``two5`` for signatures of m values
  (step 8's round robin makes m, and m + 1 for n mod m groups). For dynamic
  Anatomy, ``two5`` is also the floor of a publisher that moves a person once
  into a superset partition of 2l values (S1 plus l others, Definition 6);
- ``ours``: v outside A, the signature the person is tied to under our
  sliced-bucket's move rule (step 3m): A starts at S1 and changes only at a
  *free* move (the person's QI tuple is its own in this release and in its
  last one; step 3m also wants no ghost then and coverage for a once-held
  person, dropped here: a lower bound); a value outside A otherwise costs a
  ghost (the overdue fallback) or a held-over row. A lower bound for our
  model's ghosts + held-over rows (it ignores vacancies: a person that moves
  leaves a slot a counterfeit fills unless a person of that value arrives);
- ``pool``, ``pool_cost``: dynamic Anatomy with *universal* partitions (one
  row of each of the 14 values; Definition 6 relates one to a partition of
  value set M by an empty M - S(g) and |S(g) - M| >= l, and SPEC §6b's
  intersections stay within M's superset): the present persons that ever left
  S1 (``pool``), placed in U such partitions; U x 14 slots against their
  current values n_v cost max(sum(n_v - U)+, sum(U - n_v)+) stale or fake rows
  at the best U (``pool_cost``). A design's cost, not a bound: it leaves each
  pool person's slot in its home (a fake row until a new person of that value
  takes it).

A second walk draws every set at random (seeded per person) instead of by the
transitions: the summary's "random sets" rows, a check that the counts do not
hang on the choice.

Shares: stale-type counts (``two5``, ``two6``) % of the source; fake-type
counts as x / (n + x) % of published rows, as in minv_bound.py.

    .venv/bin/python benchmarks/sb_da_bound.py                    # 3 histories, 50 releases, size 1
    .venv/bin/python benchmarks/sb_da_bound.py --size 0.3 --releases 20

Writes benchmarks/results/sb_da_bound.json and .md (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from collections import Counter, defaultdict
from pathlib import Path

import duckdb

import sqlanon
from longrun import HISTORIES, M, QI, SA, TABLE_RELEASES, _git
from minv_bound import best_set
from sqlanon.ident import quote

OUT = Path(__file__).resolve().parent / "results" / "sb_da_bound.json"
BUDGET = 0.05  # issue 32 item 2: held + suppressed <= 5% of the source


def collect(hist: str, releases: int, scale: float) -> list[list[tuple]]:
    """Per release, the source's (id, value, QI tuple is its own) rows."""
    con = sqlanon.connect()
    qi = ", ".join(quote(c) for c in QI)
    out = []
    for _ in HISTORIES[hist](con, releases, scale):
        out.append(con.execute(f"SELECT id, {quote(SA)}, count(*) OVER (PARTITION BY {qi}) = 1 FROM src").fetchall())
    con.close()
    return out


def transitions(frames: list[list[tuple]]) -> dict:
    """Old -> new value counts over every change between two presences."""
    last, trans = {}, defaultdict(Counter)
    for rows in frames:
        for i, v, _ in rows:
            if i in last and last[i] != v:
                trans[last[i]][v] += 1
            last[i] = v
    return trans


def second_set(trans: dict, v, taken: set, s: int) -> set:
    """v and the s - 1 values of highest P(. | v) outside ``taken``."""
    c = Counter({b: n for b, n in trans.get(v, Counter()).items() if b not in taken and b != v})
    rest = [b for b, _ in sorted(c.items(), key=lambda x: (-x[1], str(x[0])))]
    return {v} | set(rest[: s - 1])


def walk(frames: list[list[tuple]], trans: dict, rand: bool = False) -> list[dict]:
    """Per release, the counts of the module's docstring. ``rand``: every set
    drawn at random (seeded by person) instead of by transitions, a check that
    the counts do not hang on the choice (the transitions are uniform)."""
    values = sorted({a for a in trans} | {b for c in trans.values() for b in c}, key=str)

    def pick(i, must, taken: set, s: int) -> set:
        rest = [b for b in values if b not in taken and b != must]
        random.Random(f"{i}/{must}/{len(taken)}").shuffle(rest)
        return {must} | set(rest[: s - 1])
    q = {}
    for a, c in trans.items():
        s1 = best_set(c, a, M - 1)
        q[a] = 1 - sum(n for b, n in c.items() if b in s1) / sum(c.values())
    first, s1 = {}, {}
    two = {5: {}, 6: {}}  # s -> id -> S2 (None until the value leaves S1)
    big = {}  # id -> S1 of 6 values (the two6 policy's first set)
    A, prev = {}, {}  # our rule: the tied signature; the tuple was its own at the last presence
    ever_out = set()
    out = []
    for t, rows in enumerate(frames, 1):
        r = Counter(n=len(rows))
        pool = Counter()
        for i, v, uniq in rows:
            if i not in first:
                first[i] = v
                if rand:
                    s1[i], big[i] = pick(i, v, set(), M), pick(i, v, set(), M + 1)
                else:
                    s1[i] = best_set(trans.get(v, Counter()), v, M - 1)
                    big[i] = best_set(trans.get(v, Counter()), v, M)
                two[5][i] = two[6][i] = None
                A[i] = s1[i]
            a = first[i]
            if v != a:
                r["moved"] += 1
                r["one_exp"] += q.get(a, 0.0)
            if v not in s1[i]:
                r["one"] += 1
                ever_out.add(i)
            if i in ever_out:
                pool[v] += 1
            for s, S1 in ((5, s1[i]), (6, big[i])):
                S2 = two[s][i]
                if v not in S1 and S2 is None:
                    S2 = two[s][i] = pick(i, v, S1, s) if rand else second_set(trans, v, S1, s)
                if v not in S1 and v not in S2:
                    r[f"two{s}"] += 1
            # our move rule: free when the tuple is its own now and at the last
            # presence (a held-over row there, not a ghost: the best case)
            pu = prev.get(i, False)
            if v not in A[i] and uniq and pu:
                S2 = two[5][i]
                A[i] = s1[i] if v in s1[i] else (S2 if S2 is not None and v in S2 else A[i])
            r["ours"] += v not in A[i]
            prev[i] = uniq
        if pool:
            best = min(max(sum(max(0, n - U) for n in pool.values()), sum(max(0, U - pool[v]) for v in q))
                       for U in range(0, max(pool.values()) + 1))
        else:
            best = 0
        r["pool"], r["pool_cost"] = sum(pool.values()), best
        row = {"t": t, **{k: r[k] for k in ("n", "moved", "one", "two5", "two6", "ours", "pool", "pool_cost")},
               "one_exp": round(r["one_exp"], 1)}
        n = row["n"]
        for k in ("one", "one_exp", "ours", "pool_cost"):
            row[f"{k}_pub"] = 100 * row[k] / (n + row[k])
        for k in ("one", "one_exp", "two5", "two6", "ours", "pool_cost"):
            row[f"{k}_src"] = 100 * row[k] / n
        lb = max(0.0, row["ours"] - BUDGET * n)
        row["ours_budget_pub"] = 100 * lb / (n + lb)
        out.append(row)
    return out, {str(a): round(v, 3) for a, v in sorted(q.items(), key=lambda x: str(x[0]))}


def markdown(d: dict) -> str:
    run = d["run"]
    L = ["# Sliced-bucket's and dynamic Anatomy's floors on the long-run histories (issue 32)", "",
         f"`benchmarks/sb_da_bound.py` on commit {run['commit']}; {run['machine']}, DuckDB {run['duckdb']}, "
         f"{run['releases']} releases, size {run['size']}, {run.get('wall_seconds', 0):.0f} s wall "
         f"(load average {run['load_start']:.1f} at the start). SA {SA}, m = l = {M}; histories and seeds of "
         "benchmarks/longrun.py. The module's docstring defines every column; a count is one realisation of "
         "the online choice (the histories' transitions are uniform: any choice is as good in expectation).",
         "",
         "Columns: **n** source rows; **moved** persons whose value differs from their first one; **one** value "
         "outside the first set S1 of m values (m-invariance's signature, a one-multiset dynamic Anatomy "
         "partition), next to minv_bound.py's expectation **E**; **two5 / two6** value outside both of two "
         "disjoint sets of 5 / 6 values (seed 003's Definition 11: no target, a stale row); **ours** value "
         "outside the signature our sliced-bucket's move rule ties the person to (a ghost or a held-over row); "
         "**pool / cost** persons that ever left S1, and the stale-or-fake rows of placing them in universal "
         "partitions at the best count. Shares: **% src** of the source, **% pub** x / (n + x); **ours -5%** "
         "the fake share left after the whole 5% stale budget is spent on them.", ""]
    last = max(r["t"] for rows in d["histories"].values() for r in rows)
    shown = " / ".join(str(t) for t in (25, 50) if t <= last) or str(last)
    L += ["## Summary", "", f"Release {shown}; **first > 5%**: the first release whose stale floor passes the 5% "
          "budget of issue 32 item 2.", "",
          "| history | one % src (first > 5%) | two5 % src (first > 5%) | two6 % src (first > 5%) | "
          "one % pub | ours % pub | ours -5% % pub | pool cost % src |", "|" + "---|" * 8]
    for h, rows in d["histories"].items():
        by = {r["t"]: r for r in rows}
        ts = [t for t in (25, 50) if t in by] or [rows[-1]["t"]]

        def cell(k, first=False):
            v = " / ".join(f"{by[t][k]:.1f}" for t in ts)
            if first:
                f = next((r["t"] for r in rows if r[k] > 100 * BUDGET), None)
                v += f" ({f if f else 'never'})"
            return v
        L.append(f"| {h} | {cell('one_src', True)} | {cell('two5_src', True)} | {cell('two6_src', True)} | "
                 f"{cell('one_pub')} | {cell('ours_pub')} | {cell('ours_budget_pub')} | {cell('pool_cost_src')} |")
        if h in d.get("random", {}):
            rows = d["random"][h]
            by = {r["t"]: r for r in rows}
            L.append(f"| {h}, random sets | {cell('one_src', True)} | {cell('two5_src', True)} | "
                     f"{cell('two6_src', True)} | {cell('one_pub')} | {cell('ours_pub')} | "
                     f"{cell('ours_budget_pub')} | {cell('pool_cost_src')} |")
    L.append("")
    for h, rows in d["histories"].items():
        L += [f"## History `{h}`", "",
              "| release | n | moved | one | E | one % pub | one % src | two5 | % src | two6 | % src | ours | "
              "% pub | ours -5% % pub | pool | cost | % src |",
              "|" + "---|" * 17]
        last = rows[-1]["t"]
        for r in rows:
            if r["t"] not in TABLE_RELEASES and r["t"] != last:
                continue
            c = [r["t"], r["n"], r["moved"], r["one"], f"{r['one_exp']:.0f}", f"{r['one_pub']:.1f}",
                 f"{r['one_src']:.1f}", r["two5"], f"{r['two5_src']:.1f}", r["two6"], f"{r['two6_src']:.1f}",
                 r["ours"], f"{r['ours_pub']:.1f}", f"{r['ours_budget_pub']:.1f}", r["pool"], r["pool_cost"],
                 f"{r['pool_cost_src']:.1f}"]
            L.append("| " + " | ".join(str(x) for x in c) + " |")
        L.append("")
    return "\n".join(L)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=50)
    ap.add_argument("--size", type=float, default=1.0)
    ap.add_argument("--history", help=f"comma-separated, of {', '.join(HISTORIES)} (default all)")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    hists = a.history.split(",") if a.history else list(HISTORIES)
    t0 = time.time()
    run = {"commit": _git(), "machine": f"{platform.machine()}, {os.cpu_count()} cores", "duckdb": duckdb.__version__,
           "releases": a.releases, "size": a.size, "load_start": os.getloadavg()[0]}
    d = {"run": run, "histories": {}, "q": {}}
    for h in hists:
        frames = collect(h, a.releases, a.size)
        trans = transitions(frames)
        d["histories"][h], d["q"][h] = walk(frames, trans)
        d.setdefault("random", {})[h] = walk(frames, trans, rand=True)[0]
        run["wall_seconds"] = time.time() - t0
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(d, indent=1) + "\n")
        a.out.with_suffix(".md").write_text(markdown(d))
        print(f"{h}: {time.time() - t0:.0f} s", flush=True)
    print(a.out.with_suffix(".md").read_text())


if __name__ == "__main__":
    main()

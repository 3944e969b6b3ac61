"""Publishing forever (issue 32, SPEC §11): 50 releases of three Adult
histories for every safe model at m = 5, SA occupation; per release the fake
share, the stale share, refusals, NCP, seed 003's query error and seconds.

Histories (a function each: it leaves table ``src`` as the source of the next
release):

- ``demo``: ``sqlanon.histories.snapshot`` as ``sqlanon demo`` drives it
  (Adult, both parts, complete rows; seed 1; n_releases = the run's releases):
  births, absences of one or two releases then re-insertion, 20% of the persons
  updated once (at a release spread over the history);
- ``seed003``: seed 003 §6's protocol (benchmarks/_seed003.py, seed 3): 30,000
  Adult persons, then per release 1,000 re-inserted, 3,500 deleted, 1,000
  updated, 4,000 inserted (the source grows by 1,500 a release);
- ``updates``: ``sqlanon.histories.history`` on Adult (seed 1): 30,000 persons,
  then per release 8% of the present persons updated (half of them flip back
  to an earlier value of theirs when they have one), 8% deleted, 10% inserted
  while the pool lasts (Adult runs out at release 5), half of the persons
  deleted so far re-inserted.

QI age, workclass, education, marital_status, race, sex, native_country (the
demo's), SA occupation, m = l = 5. Models: m-invariance with
``output="anatomy"`` and ``"generalized"``, sliced-bucket (default tau, cach),
dynamic-anatomy (l = 5). Each (history, model) is one stream in a fresh
in-memory database; a refused release is recorded with its error and the
stream goes on with the next source.

Per release:

- ``fake``: counterfeits / published rows (ReleaseResult; the membership's
  counterfeit rows are counted too and must agree);
- ``hs``: held + suppressed as ReleaseResult reports them, / source rows
  (m-invariance: held = source rows with no real row; sliced-bucket: held =
  persons with no real row, suppressed = updates held over; dynamic-anatomy:
  held = rows of persons no longer in the source, suppressed = source persons
  not published with their current value - each person counted once);
- ``stale``: from the private membership, whatever the counters say: real
  (not counterfeit) rows of persons in the source published with a value other
  than their current one, plus source persons with no real row, plus real rows
  of persons no longer in the source, / source rows;
- ``ncp`` (ReleaseResult), ``qe``: seed 003 eq. 8, 200 COUNT queries at 10%
  selectivity, predicates from the macro behind ``sqlanon_query_error``
  (``sqlanon__query_error_predicates`` over the source, seed = the release's
  number: the same queries for every model), the truth counted on the source,
  the estimate Anatomy's from the release's QI and sensitive tables
  (counterfeits included), as benchmarks/sliced_bucket.py computes it;
- ``seconds``: the release's own time (ReleaseResult; a refused release: the
  attempt's wall time).

    .venv/bin/python benchmarks/longrun.py                      # all: 3 histories x 4 models x 50 releases
    .venv/bin/python benchmarks/longrun.py --quick              # --size 0.1 --releases 6 (development)
    .venv/bin/python benchmarks/longrun.py --history demo --model sliced-bucket --releases 10
    .venv/bin/python benchmarks/longrun.py --render a.json b.json  # merge runs, rewrite md and png only

Writes (``--out``, default benchmarks/results/longrun.json) the JSON of every
release, and next to it longrun.md and longrun.png; all three are rewritten
after every finished stream, so an interrupted run leaves its finished streams.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import numpy as np

import _seed003
import sqlanon
from _once import warn_once
from sqlanon import Publisher, SqlanonError
from sqlanon.datasets import load_adult
from sqlanon.histories import history, snapshot

OUT = Path(__file__).resolve().parent / "results" / "longrun.json"
QI = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
SA = "occupation"
M = 5
TABLE_RELEASES = (1, 5, 10, 20, 25, 30, 40, 50)
N_QUERIES, SELECTIVITY = 200, 0.1
# the issue's targets (release 50; the staleness one in every release)
FAKE_TARGET = {"m-invariance/anatomy": 10.0, "m-invariance/generalized": 10.0, "sliced-bucket": 6.0}
FAKE_RISE, HS_TARGET = 2.0, 5.0


# ------------------------------------------------------------------ histories
def _adult(con, table: str, scale: float) -> None:
    """Adult (both parts, complete rows) as ``table``; a seeded share ``scale`` of it when < 1."""
    load_adult(con, table, part="both", complete=True)
    if scale < 1:
        con.execute(f"DELETE FROM {table} WHERE hash(id, 'longrun') % 1000000 >= {round(scale * 1_000_000)}")


def demo_history(con, releases: int, scale: float) -> Iterator[None]:
    """sqlanon demo's history (sqlanon/demo.py): snapshot over Adult, seed 1."""
    _adult(con, "adult_pool", scale)
    for t in range(1, releases + 1):
        snapshot(con, "adult_pool", "src", t, sa=SA, n_releases=releases, seed=1)
        yield


def seed003_history(con, releases: int, scale: float) -> Iterator[None]:
    """Seed 003 §6's protocol (benchmarks/_seed003.py), seed 3."""
    n_pool, next_id = _seed003.start(con, 3, scale)
    for t in range(1, releases + 1):
        if t > 1:
            next_id = _seed003.edit(con, t, 3, n_pool, next_id, scale)
        yield


def updates_history(con, releases: int, scale: float) -> Iterator[None]:
    """sqlanon.histories.history on Adult: 8% updates a release (half flip
    back), re-inserts, deletes and inserts at the function's defaults; seed 1."""
    _adult(con, "adult_pool", scale)
    pool = con.execute("SELECT * FROM adult_pool ORDER BY hash(id, 'longrun order'), id").df()
    frames = history(pool, "id", SA, releases=releases, start=round(30000 * scale), update=0.08, flip_back=0.5,
                     seed=1)
    for frame in frames:
        con.register("longrun_frame", frame)
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM longrun_frame ORDER BY id")
        con.unregister("longrun_frame")
        yield


HISTORIES: dict[str, Callable[..., Iterator[None]]] = {
    "demo": demo_history, "seed003": seed003_history, "updates": updates_history}
SEEDS = {"demo": 1, "seed003": 3, "updates": 1}  # the Publisher's seed: the history's
# run in this order: m-invariance's generalized output groups as its anatomy
# output does (the same templates and seed; it adds the generalized table), so it
# runs last and a run cut short still has every grouping
MODELS = {
    "m-invariance/anatomy": dict(model="m-invariance", output="anatomy", m=M),
    "sliced-bucket": dict(model="sliced-bucket", m=M),
    "dynamic-anatomy": dict(model="dynamic-anatomy", l=M),
    "m-invariance/generalized": dict(model="m-invariance", output="generalized", m=M),
}


# -------------------------------------------------------------------- metrics
def membership_counts(con, r: int) -> dict:
    """Release r of project p against the source src, from the private membership."""
    names = ("mem_published", "mem_fake", "ghosts", "wrong_value", "absent", "gone_rows", "source")
    row = con.execute(f"""
        WITH mem AS (SELECT id, {SA} AS sa, is_counterfeit FROM sqlanon__membership_rows('p') WHERE release = $r),
        real AS (SELECT id, sa FROM mem WHERE NOT is_counterfeit AND id IS NOT NULL)
        SELECT (SELECT count(*) FROM mem),
               (SELECT count(*) FROM mem WHERE is_counterfeit),
               (SELECT count(*) FROM mem WHERE is_counterfeit AND id IS NOT NULL),
               (SELECT count(*) FROM real JOIN src AS s USING (id) WHERE s.{SA} IS DISTINCT FROM real.sa),
               (SELECT count(*) FROM src WHERE id NOT IN (SELECT id FROM real)),
               (SELECT count(*) FROM real WHERE id NOT IN (SELECT id FROM src)),
               (SELECT count(*) FROM src)""", {"r": r}).fetchone()
    return dict(zip(names, row))


class QueryError:
    """Seed 003 eq. 8 on a release, as benchmarks/sliced_bucket.py's query_error
    computes it (truth on the source, Anatomy's estimate from qit and st), for
    any QI list: the macro's predicates as a (values x queries) selection
    matrix per column, the matches by numpy. The predicates and the truth
    depend on the source only; they are cached per (history, release)."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, int], tuple[dict, np.ndarray]] = {}

    @staticmethod
    def _match(sel: dict, df, cols: list[str]) -> np.ndarray:
        """(rows x queries): the row satisfies every predicate on ``cols``."""
        out = np.ones((len(df), N_QUERIES), dtype=bool)
        for c in cols:
            values, mat = sel[c]
            codes = values.get_indexer(df[c].astype(object))  # -1: NULL or a value no query holds
            out &= np.vstack([mat, np.zeros((1, N_QUERIES), dtype=bool)])[codes]
        return out

    def _truth(self, con, key: tuple[str, int]) -> tuple[dict, np.ndarray]:
        if key not in self.cache:
            import pandas as pd

            pred = con.execute("SELECT query, col, v FROM sqlanon__query_error_predicates('src', ?, ?, ?, ?, ?)",
                               [QI, SA, N_QUERIES, SELECTIVITY, key[1]]).df()
            sel = {}
            for c, g in pred.groupby("col"):
                values = pd.Index(sorted(g["v"].unique()))
                mat = np.zeros((len(values), N_QUERIES), dtype=bool)
                mat[values.get_indexer(g["v"]), g["query"].to_numpy()] = True
                sel[c] = (values, mat)
            src = con.execute(f"SELECT {', '.join(f'{c}::VARCHAR AS {c}' for c in QI + [SA])} FROM src").df()
            self.cache[key] = (sel, self._match(sel, src, QI + [SA]).sum(axis=0))
        return self.cache[key]

    def __call__(self, con, key: tuple[str, int], r: int) -> float:
        sel, truth = self._truth(con, key)
        qit = con.execute(f"SELECT group_id, {', '.join(f'{c}::VARCHAR AS {c}' for c in QI)} FROM sqlanon_p_qit "
                          "WHERE release = $r ORDER BY group_id", {"r": r}).df()
        st = con.execute(f"SELECT group_id, {SA}::VARCHAR AS {SA}, count FROM sqlanon_p_st WHERE release = $r "
                         "ORDER BY group_id", {"r": r}).df()
        # per group (rows sorted by group): rows matching the QI predicates, the SA predicate, group size
        gq, q_start = np.unique(qit["group_id"].to_numpy(), return_index=True)
        gs, s_start = np.unique(st["group_id"].to_numpy(), return_index=True)
        assert np.array_equal(gq, gs), "the QI and sensitive tables' groups differ"
        cq = np.add.reduceat(self._match(sel, qit, QI).astype(np.int64), q_start, axis=0)
        cnt = st["count"].to_numpy(dtype=float)
        cs = np.add.reduceat(self._match(sel, st, [SA]) * cnt[:, None], s_start, axis=0)
        gz = np.add.reduceat(cnt, s_start)
        est = (cq * cs / gz[:, None]).sum(axis=0)
        ok = truth > 0
        return float(np.mean(np.abs(est[ok] - truth[ok]) / truth[ok]))


# --------------------------------------------------------------------- runner
def run(hist: str, model: str, releases: int, scale: float, qe: QueryError, log=print) -> list[dict]:
    """One stream: history ``hist`` published under ``model``; a row per source."""
    con = sqlanon.connect()
    pub, rows = None, []
    for t, _ in enumerate(HISTORIES[hist](con, releases, scale), 1):
        if pub is None:
            pub = Publisher(con, "p", source="src", id="id", qi=QI, sa=SA, seed=SEEDS[hist], **MODELS[model])
        n = con.execute("SELECT count(*) FROM src").fetchone()[0]
        row = {"history": hist, "model": model, "t": t, "source": n}
        t0 = time.perf_counter()
        try:
            res = pub.release()
        except SqlanonError as exc:
            row.update(refused=str(exc), seconds=time.perf_counter() - t0)
            log(f"  {hist} {model} source {t}: REFUSED {exc}")
            rows.append(row)
            continue
        mc = membership_counts(con, res.release)
        row.update(release=res.release, published=res.published, counterfeits=res.counterfeits, held=res.held,
                   suppressed=res.suppressed, exposed=res.exposed, new=res.new, deleted=res.deleted,
                   reinserted=res.reinserted, updated=res.updated, ncp=res.ncp, seconds=res.seconds, **mc)
        row["fake"] = 100 * res.counterfeits / res.published if res.published else 0.0
        row["hs"] = 100 * (res.held + res.suppressed) / n
        row["stale"] = 100 * (mc["wrong_value"] + mc["absent"] + mc["gone_rows"]) / n
        q0 = time.perf_counter()
        row["qe"] = qe(con, (hist, t), res.release)
        row["metric_seconds"] = time.perf_counter() - q0
        if mc["mem_fake"] != res.counterfeits or mc["mem_published"] != res.published:
            row["mismatch"] = True
        rows.append(row)
        if t in TABLE_RELEASES or t == releases:
            log(f"  {hist} {model} {t}: fake {row['fake']:.1f}% h+s {row['hs']:.1f}% stale {row['stale']:.1f}% "
                f"NCP {res.ncp:.1f} qe {row['qe']:.3f} {res.seconds:.2f} s")
    con.close()
    return rows


# --------------------------------------------------------------------- writer
def _git() -> str:
    """HEAD's short hash, with "+changes" when tracked files differ from it."""
    try:
        git = ["git", "-C", str(Path(__file__).parent)]
        head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except OSError:
        return "?"


def _f(x, fmt: str) -> str:
    return "" if x is None else format(x, fmt)


def write(d: dict, out: Path) -> None:
    """longrun.json, longrun.md and longrun.png next to it, from ``d``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(d, indent=1) + "\n")
    md = out.with_suffix(".md")
    md.write_text(markdown(d, out.with_suffix(".png").name))
    plot(d, out.with_suffix(".png"))


def _streams(d: dict) -> dict[tuple[str, str], list[dict]]:
    s: dict[tuple[str, str], list[dict]] = {}
    for x in d["rows"]:
        s.setdefault((x["history"], x["model"]), []).append(x)
    return s


def markdown(d: dict, png: str = "longrun.png") -> str:
    streams = _streams(d)
    hists = [h for h in HISTORIES if any(k[0] == h for k in streams)]
    models = [m for m in MODELS if any(k[1] == m for k in streams)]
    runs = d["runs"]
    L = ["# Publishing forever: long-run fake and stale shares (issue 32)", "",
         f"`benchmarks/longrun.py` on commit {', '.join(sorted({r['commit'] for r in runs}))}; "
         + "; ".join(f"{r['machine']}, DuckDB {r['duckdb']}, {r['releases']} releases, size {r['size']}, "
                     f"histories {', '.join(r['histories'])}, load average (1 min) {r['load_start']:.1f} at the start, "
                     f"{r['load_end']:.1f} at the end, {r['wall_seconds'] / 60:.0f} min wall" for r in runs) + ".",
         "The machine's 2 cores are shared with other jobs: seconds are wall clock under that load, "
         "not comparable to the other benchmarks' quiet-machine numbers. A history's streams run one after another "
         "in the order of the columns below, and the load changes during a run: compare seconds within a stream, "
         "not across models.", "",
         f"QI {', '.join(QI)}; SA {SA}; m = l = {M}. Histories: `demo` = sqlanon.histories.snapshot as `sqlanon demo` "
         "drives it (seed 1); `seed003` = benchmarks/_seed003.py (seed 3; +1,500 persons a release); `updates` = "
         "sqlanon.histories.history (seed 1; 30,000 persons, 8% updated a release, half flipping back, 8% deleted, "
         "10% inserted until Adult runs out, half of the deleted re-inserted). The module's docstring defines "
         "every column.", "",
         "Columns: **fake** = counterfeits / published rows; **h+s** = (held + suppressed) as ReleaseResult reports "
         "them / source rows; **stale** = from the private membership: persons of the source published with another "
         "value than their current one, or not at all, plus rows of persons no longer in the source, / source rows; "
         "**NCP** %; **qe** = seed 003's query error (200 queries, 10%); **s** = seconds of the release. "
         "A refused release shows `REFUSED`.", ""]
    for h in hists:
        L += [f"## History `{h}`", ""]
        head = "| release | " + " | ".join(f"{m}: fake % | h+s % | stale % | NCP | qe | s" for m in models) + " |"
        L += [head, "|---|" + "---|---|---|---|---|---|" * len(models)]
        last = max(x["t"] for k, xs in streams.items() if k[0] == h for x in xs)
        for t in [t for t in TABLE_RELEASES if t <= last] + ([last] if last not in TABLE_RELEASES else []):
            cells = []
            for m in models:
                x = next((y for y in streams.get((h, m), []) if y["t"] == t), None)
                if x is None:
                    cells.append(" |  |  |  |  | ")
                elif "refused" in x:
                    cells.append(f"REFUSED |  |  |  |  | {x['seconds']:.2f}")
                else:
                    cells.append(f"{x['fake']:.1f} | {x['hs']:.1f} | {x['stale']:.1f} | {x['ncp']:.1f} | "
                                 f"{x['qe']:.3f} | {x['seconds']:.2f}")
            L.append(f"| {t} | " + " | ".join(cells) + " |")
        ref = [(k[1], x) for k, xs in streams.items() if k[0] == h for x in xs if "refused" in x]
        if ref:
            L += ["", f"Refused releases of `{h}` ({len(ref)}):", ""]
            for m, x in ref:
                L.append(f"- {m}, source {x['t']}: {x['refused']}")
        bad = [(k[1], x["t"]) for k, xs in streams.items() if k[0] == h for x in xs if x.get("mismatch")]
        if bad:
            L += ["", f"ReleaseResult's published/counterfeits differ from the membership's counts in: {bad}"]
        L.append("")
    L += ["## Release 25 against the last release, and the targets", "",
          f"Targets (issue 32): fake share at release 50 ≤ 10% (m-invariance), ≤ 6% (sliced-bucket), and at most "
          f"{FAKE_RISE:g} points above release 25; held + suppressed ≤ {HS_TARGET:g}% of the source in every release "
          "(checked on h+s and, for honesty, on the membership's stale share).", "",
          "| history | model | fake % r25 | fake % last | Δ points | fake target | max h+s % | h+s target | "
          "first release h+s > 5% | max stale % | stale % r25 | stale % last | refused | mean s |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for h in hists:
        for m in models:
            xs = streams.get((h, m))
            if not xs:
                continue
            ok = [x for x in xs if "refused" not in x]
            last = max(x["t"] for x in xs)
            a = next((x for x in ok if x["t"] == 25), None)
            b = next((x for x in ok if x["t"] == last), None)
            fa, fb = (a or {}).get("fake"), (b or {}).get("fake")
            delta = None if fa is None or fb is None else fb - fa
            tgt = FAKE_TARGET.get(m)
            if tgt is None or fb is None:
                verdict = "n/a" if tgt is None else "?"
            else:
                verdict = ("met" if fb <= tgt and (delta is None or delta <= FAKE_RISE) else "missed") \
                    + f" (≤ {tgt:g}%)"
            mhs = max((x["hs"] for x in ok), default=None)
            mst = max((x["stale"] for x in ok), default=None)
            L.append(f"| {h} | {m} | {_f(fa, '.1f')} | {_f(fb, '.1f')} | {_f(delta, '+.1f')} | {verdict} | "
                     f"{_f(mhs, '.1f')} | {'met' if mhs is not None and mhs <= HS_TARGET else 'missed'} | "
                     f"{next((x['t'] for x in ok if x['hs'] > HS_TARGET), '')} | "
                     f"{_f(mst, '.1f')} | {_f((a or {}).get('stale'), '.1f')} | {_f((b or {}).get('stale'), '.1f')} | "
                     f"{len(xs) - len(ok)} | {sum(x['seconds'] for x in xs) / len(xs):.2f} |")
    L += ["", "Stale rows at the last release (from the membership): persons of the source published with an "
          "earlier value (wrong value), persons of the source with no real row (absent; a ghost may show an earlier "
          "value), real rows of persons no longer in the source (gone), against ReleaseResult's held and suppressed:",
          "", "| history | model | source | published | counterfeits | of them ghosts | wrong value | absent | gone | "
          "held | suppressed |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for h in hists:
        for m in models:
            ok = [x for x in streams.get((h, m), []) if "refused" not in x]
            if ok:
                x = ok[-1]
                L.append(f"| {h} | {m} (release {x['t']}) | {x['source']} | {x['published']} | {x['counterfeits']} | "
                         f"{x['ghosts']} | {x['wrong_value']} | {x['absent']} | {x['gone_rows']} | {x['held']} | "
                         f"{x['suppressed']} |")
    refused = sum("refused" in x for x in d["rows"])
    L += ["", f"Refused releases in these results: {refused} of {len(d['rows'])}; persons the gate reported exposed: "
          f"{sum(x.get('exposed', 0) for x in d['rows'])}."]
    a, g = "m-invariance/anatomy", "m-invariance/generalized"
    pairs = [(x, y) for k, xs in streams.items() if k[1] == a for x in xs
             for y in streams.get((k[0], g), []) if y["t"] == x["t"] and "refused" not in x and "refused" not in y]
    if pairs:
        same = sum(all(x[k] == y[k] for k in ("published", "counterfeits", "held", "wrong_value", "absent", "gone_rows"))
                   and abs(x["ncp"] - y["ncp"]) < 1e-9 and abs(x["qe"] - y["qe"]) < 1e-9 for x, y in pairs)
        L.append(f"m-invariance's generalized output against its anatomy output: the same counts, NCP and query "
                 f"error (to 1e-9) in {same} of {len(pairs)} releases; only the seconds differ.")
    missing = [f"{h}/{m}" for h in HISTORIES for m in MODELS if (h, m) not in streams]
    if missing:
        L += ["", f"Not in these results: {', '.join(missing)}."]
    L += ["", "The last release is release 50 when the run had 50 releases; its column says which otherwise. "
          f"Plot: {png} (fake and stale share per release, a panel per history, a line per model; dashed: "
          "h+s as reported).", ""]
    return "\n".join(L)


def plot(d: dict, path: Path) -> None:
    from matplotlib.figure import Figure

    streams = _streams(d)
    hists = [h for h in HISTORIES if any(k[0] == h for k in streams)]
    fig = Figure(figsize=(5 * max(1, len(hists)), 7.5))
    axes = fig.subplots(2, max(1, len(hists)), squeeze=False)
    for j, h in enumerate(hists):
        for i, m in enumerate(MODELS):
            xs = [x for x in streams.get((h, m), []) if "refused" not in x]
            if not xs:
                continue
            c, w = f"C{i}", 3 if i == 0 else 1.5  # m-invariance's two outputs coincide: the first one wider
            t = [x["t"] for x in xs]
            axes[0][j].plot(t, [x["fake"] for x in xs], color=c, lw=w, label=m)
            axes[1][j].plot(t, [x["stale"] for x in xs], color=c, lw=w, label=f"{m} (membership)")
            axes[1][j].plot(t, [x["hs"] for x in xs], color=c, ls="--", lw=0.8, label=f"{m} (h+s)")
            refused = [x["t"] for x in streams[(h, m)] if "refused" in x]
            if refused:
                axes[0][j].plot(refused, [0] * len(refused), "x", color=c)
        axes[0][j].set_title(f"{h}: fake share % (counterfeits / published)", fontsize=9)
        axes[1][j].set_title(f"{h}: stale share % of the source", fontsize=9)
        axes[1][j].axhline(HS_TARGET, color="grey", lw=0.5)
        for ax in (axes[0][j], axes[1][j]):
            ax.set_xlabel("release")
            ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


# ----------------------------------------------------------------------- main
def _pick(arg: str | None, names, what: str) -> list[str]:
    if not arg:
        return list(names)
    out = []
    for a in arg.split(","):
        hit = [n for n in names if n == a or n.startswith(a + "/")]
        if not hit:
            raise SystemExit(f"unknown {what} {a!r}; use {', '.join(names)}")
        out += [n for n in hit if n not in out]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, default=None, help="releases per stream (default 50)")
    ap.add_argument("--history", help=f"comma-separated, of {', '.join(HISTORIES)} (default all)")
    ap.add_argument("--model", help=f"comma-separated, of {', '.join(MODELS)}; m-invariance = both outputs "
                                    "(default all)")
    ap.add_argument("--size", type=float, default=None,
                    help="scale of the starting source and of every edit (default 1 = the histories' natural size)")
    ap.add_argument("--quick", action="store_true", help="development: --size 0.1 --releases 6 unless given")
    ap.add_argument("--out", type=Path, default=OUT, help="the JSON; .md and .png next to it")
    ap.add_argument("--render", nargs="+", type=Path, metavar="JSON",
                    help="only merge these JSON files (later ones win per stream) into --out, with md and png")
    a = ap.parse_args()
    if a.render:
        d = {"runs": [], "rows": []}
        for p in a.render:
            e = json.loads(p.read_text())
            keys = {(x["history"], x["model"]) for x in e["rows"]}
            d["rows"] = [x for x in d["rows"] if (x["history"], x["model"]) not in keys] + e["rows"]
            d["runs"] += e["runs"]
        write(d, a.out)
        print(a.out.with_suffix(".md").read_text())
        return
    releases = a.releases or (6 if a.quick else 50)
    size = a.size or (0.1 if a.quick else 1.0)
    hists, models = _pick(a.history, HISTORIES, "history"), _pick(a.model, MODELS, "model")
    warn_once()
    t0 = time.time()
    run_info = {"commit": _git(), "machine": f"{platform.machine()} {platform.processor() or ''}".strip()
                + f", {os.cpu_count()} cores", "duckdb": duckdb.__version__, "releases": releases, "size": size,
                "histories": hists, "models": models, "load_start": os.getloadavg()[0]}
    d = {"runs": [run_info], "rows": []}
    qe = QueryError()
    for h in hists:
        for m in models:
            s0 = time.time()
            d["rows"] += run(h, m, releases, size, qe)
            run_info.update(load_end=os.getloadavg()[0], wall_seconds=time.time() - t0)
            write(d, a.out)
            print(f"{h} {m}: {time.time() - s0:.0f} s (total {time.time() - t0:.0f} s)", flush=True)
    print(a.out.with_suffix(".md").read_text())


if __name__ == "__main__":
    main()

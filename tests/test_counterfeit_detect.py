"""Issue 19, item 2: counterfeits cannot be told from real rows by what is
published (docs/threat_model.md, "Counterfeits").

An m-invariance history is published from Adult (32,561 rows with their
NULLs, 7 QI; histories from sqlanon.histories, like benchmarks/guarantee.py).
Detectors read only the public QI and SA tables, as exported (``COPY``, file
order), and the published counterfeit count of the release. Each detector is
a feature of a QI row computed from those tables:

- ``repeat``: rows of the same group with the same QI tuple (in-group repeat);
- ``freq``: rows of the release with the same QI tuple;
- ``near``: rows of the release one attribute away (nearest real row / rarity
  of the combination);
- ``mate``: least number of attributes in which the row differs from a
  group-mate;
- ``agedev``: distance of the age from the group's median age;
- ``ageout``: the age more than 1.5 standard deviations from its group's
  mean (issue 33 item 2: the red team's age-outlier test);
- ``z:<col>``: the z-score of each numeric QI column inside the group (binned);
- ``nulls``: NULL QI values of the row; ``age``: the age itself (ranges);
- ``pos``: position of the row inside its group in the exported file, with
  the group's size (row order, counts);
- ``type``: whether the row is of the release's most frequent class of
  marital status and sex (married men), and if so how many rows of that class
  its group has (a QI that shows an SA value: a group holds one Husband, so a
  second married man is suspect; docs/threat_model.md, "Why relationship
  m = 4 cannot meet the limit").

For each feature the detector learns, on half of the groups (by group id,
with the truth: stronger than any real adversary), the value bin with the
highest counterfeit rate among bins holding at least 2% of the rows, and
flags that bin on the other half. Its precision is compared with the
counterfeit share of the scored rows. Ghosts (an updated person's earlier
version, carrying the person's own QI by design) are left out of the scored
rows; the threat model says what a detector learns from them.

The truth comes from the private membership and the source: per (group, QI
tuple), the published rows minus the real persons and ghosts with that tuple
are the ordinary counterfeits (identical public rows are scored alike).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from adult_history import QI_ALL, publish_history, qi_of

import sqlanon

QI = QI_ALL
# Precision may exceed the counterfeit share by at most this much (points of
# share). Sampling noise of a bin of >= 2% of ~15,000 test rows at a 20-40%
# rate is about 1.5 points (one standard deviation); the best of ~50 bins
# picked on the training half adds little because the bin is fixed before the
# test half is scored.
TOLERANCE = 0.05
MIN_BIN = 0.02
# the QI pair that shows the SA's type on Adult (a married man is nearly always
# a Husband): the type detector's class
TYPE_QI = ("marital_status", "sex")


def _key(alias: str = "", qi=None) -> str:
    a = f"{alias}." if alias else ""
    return "row(" + ", ".join(a + c for c in (qi or QI)) + ")::VARCHAR"


def publish(con, sa: str, m: int, releases: int, seed: int = 0, start: int = 20000,
            model: str = "m-invariance", output: str = "anatomy"):
    """Publish an Adult history; returns the number of releases (sources src1..srcN)."""
    return publish_history(con, "c", sa, m, releases, start, model, output, seed)


def scored_rows(con, release: int, qi=None) -> pd.DataFrame:
    """One row per public QI row of ``release`` with its features (public
    tables only) and its counterfeit probability cf (truth, for scoring)."""
    QI = qi or globals()["QI"]
    k = _key(qi=QI)
    diffs = " + ".join(f"(a.{c} IS DISTINCT FROM b.{c})::INT" for c in QI)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE pubq AS
        SELECT rowid AS rid, group_id, {', '.join(QI)}, {k} AS k
        FROM sqlanon_c_qit WHERE release = {release}""")
    # one attribute away: per attribute, rows sharing every other attribute
    # (the tuple without it) less the rows with the same tuple
    drop_one = " + ".join(
        f"count(*) OVER (PARTITION BY {', '.join(d for d in QI if d != c)})" for c in QI)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE feat AS
        WITH base AS (
            SELECT *, count(*) OVER (PARTITION BY group_id, k) AS repeat,
                   count(*) OVER (PARTITION BY k) AS freq,
                   {drop_one} - {len(QI)} * count(*) OVER (PARTITION BY k) AS near,
                   abs(age - median(age) OVER (PARTITION BY group_id)) AS agedev,
                   {" + ".join(f"({c} IS NULL)::INT" for c in QI)} AS nulls,
                   row_number() OVER (PARTITION BY group_id ORDER BY rid) AS pos,
                   count(*) OVER (PARTITION BY group_id) AS gsize
            FROM pubq
        ), mate AS (
            SELECT a.rid, min({diffs}) AS mate
            FROM pubq AS a JOIN pubq AS b ON a.group_id = b.group_id AND a.rid <> b.rid
            GROUP BY a.rid
        ), truth AS (
            SELECT group_id, k, count(*) FILTER (WHERE NOT m.is_counterfeit) AS nreal,
                   count(*) FILTER (WHERE m.is_counterfeit) AS nghost
            FROM sqlanon__membership_rows('c') AS m JOIN src{release} AS s ON s.id = m.id
            CROSS JOIN LATERAL (SELECT {_key('s', QI)} AS k)
            WHERE m.release = {release}
            GROUP BY ALL
        )
        SELECT b.*, mt.mate, coalesce(t.nreal, 0) AS nreal, coalesce(t.nghost, 0) AS nghost
        FROM base AS b LEFT JOIN mate AS mt USING (rid) LEFT JOIN truth AS t USING (group_id, k)""")
    df = con.execute("SELECT * FROM feat").df()
    # numeric QI columns: z-score inside the group (a constant group: 0)
    for c in QI:
        if pd.api.types.is_numeric_dtype(df[c]):
            g = df.groupby("group_id")[c]
            sd = g.transform("std", ddof=0)
            df[f"z:{c}"] = ((df[c] - g.transform("mean")) / sd.where(sd > 0)).fillna(0.0)
    g = df.groupby("group_id")["age"]
    sd = g.transform("std", ddof=0)
    df["ageout"] = ((df["age"] - g.transform("mean")).abs() > 1.5 * sd) & (sd > 0)
    # identical public rows (group, tuple) share the truth: cf rows of n
    df["cf"] = ((df["repeat"] - df["nreal"] - df["nghost"]) / df["repeat"]).clip(lower=0)
    df["ghost"] = df["nghost"] / df["repeat"]
    return df


def type_class(df: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per public QI row: whether it is of class K, the release's most frequent
    combination of TYPE_QI values among its QI rows, and the number of rows of K
    in its group (capped at 3)."""
    cls = df[list(TYPE_QI)].astype(str).agg("/".join, axis=1)
    in_k = cls == cls.value_counts().idxmax()
    return in_k, in_k.groupby(df["group_id"]).transform("sum").clip(upper=3).astype(int)


def _bins(df: pd.DataFrame) -> dict[str, pd.Series]:
    cap = lambda s, hi: s.clip(upper=hi).astype(int)  # noqa: E731
    in_k, n_k = type_class(df)
    return {
        "repeat": cap(df["repeat"], 4),
        "freq": cap(df["freq"], 12),
        "near": pd.cut(df["near"], [-1, 0, 1, 2, 4, 8, 16, 32, 64, 10**9], labels=False),
        "mate": df["mate"].fillna(-1).astype(int),
        "agedev": cap(df["agedev"], 12),
        "nulls": cap(df["nulls"], 3),
        "age": (df["age"].fillna(-5) // 5).astype(int),
        "pos": df["pos"].clip(upper=8).astype(str) + "/" + df["gsize"].clip(upper=8).astype(str),
        "type": ("K#" + n_k.astype(str)).where(in_k, "other"),
        "ageout": df["ageout"].astype(int),
        **{z: pd.cut(df[z], [-1e9, -2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2, 1e9], labels=False)
           for z in df.columns if z.startswith("z:")},
    }


def detectors(df: pd.DataFrame, parity: int = 0, cf: pd.Series | None = None) -> dict[str, tuple[float, float]]:
    """Per detector: (precision on the test half, share of its scored rows
    flagged). Ghost rows are left out (weight 1 - ghost). The training half is
    the groups of even id (``parity`` 0) or of odd id (1); ``cf`` replaces the
    truth (the shuffled-label control)."""
    out = {}
    for name, (fcf, fw, tw) in flagged(df, parity, cf).items():
        out[name] = (fcf / max(fw, 1e-9), fw / tw)
    return out


def flagged(df: pd.DataFrame, parity: int = 0, cf: pd.Series | None = None) -> dict[str, tuple[float, float, float]]:
    """Per detector: (counterfeit weight flagged, weight flagged, weight of the
    test half), the detector learnt on the groups of id parity ``parity``."""
    w = 1 - df["ghost"]
    cf = df["cf"] if cf is None else cf
    train = df["group_id"] % 2 == parity
    out = {}
    for name, b in _bins(df).items():
        rows = w.groupby([b, train]).sum()
        cfs = cf.groupby([b, train]).sum()
        tr = pd.DataFrame({"rows": rows.xs(True, level=1), "cf": cfs.xs(True, level=1)})
        tr = tr[tr["rows"] >= MIN_BIN * w[train].sum()]
        best = (tr["cf"] / tr["rows"]).idxmax()
        te = (b == best) & ~train
        out[name] = (float(cf[te].sum()), float(w[te].sum()), float(w[~train].sum()))
    return out


def shuffled(df: pd.DataFrame, rng) -> pd.Series:
    """The control's labels: the counterfeit weights of the scored rows (ghost
    rows keep theirs) permuted at random over them, so that no public feature
    tells them apart."""
    cf = df["cf"].copy()
    ok = df["ghost"] == 0
    cf[ok] = rng.permutation(cf[ok].to_numpy())
    return cf


def _check(con, release: int, qi=None):
    df = scored_rows(con, release, qi)
    w = 1 - df["ghost"]
    share = df["cf"][df["group_id"] % 2 == 1].sum() / w[df["group_id"] % 2 == 1].sum()
    res = detectors(df)
    return share, res, df


@pytest.mark.slow
@pytest.mark.parametrize("sa,m", [
    pytest.param("relationship", 4, marks=pytest.mark.xfail(
        strict=True, reason="open (issue 19 item 2), and not reachable by any choice of the counterfeits' QI: "
        "Husband (40% > 1/m) is in every group and the QI shows it (married men), so the type detector keeps at "
        "least +6.0 points in every release (benchmarks/counterfeits.py, type_bound); release 1: type 49.4%, "
        "agedev 44.7% at a 37.5% share; see docs/threat_model.md \"Why relationship m = 4 cannot meet the "
        "limit\"")),
    ("occupation", 5),
])
def test_no_detector_beats_the_counterfeit_share(con, sa, m):
    n = publish(con, sa, m, releases=2)
    _assert_no_detector(con, n, qi_of(sa))


def _assert_no_detector(con, n: int, qi: list[str], label: str = ""):
    scored = 0
    for r in range(1, n + 1):
        share, res, _ = _check(con, r, qi)
        if share <= 0.02:  # (almost) no counterfeits in this release: nothing to detect
            continue
        scored += 1
        worst = max(res, key=lambda d: res[d][0])
        msg = ", ".join(f"{d} {p:.1%} ({f:.0%} flagged)" for d, (p, f) in sorted(res.items()))
        assert res[worst][0] <= share + TOLERANCE, \
            f"{label}release {r}: detector {worst} reaches {res[worst][0]:.1%} precision, share {share:.1%}: {msg}"
    assert scored, "the history must have counterfeits for the test to mean anything"


SEEDS = (0, 1, 2)
SHUFFLES = 4


def pooled(sa: str, m: int, model: str = "m-invariance", output: str = "anatomy", seeds=SEEDS,
           persons: int = 7500, releases: int = 3) -> dict[int, dict]:
    """The red team's histories pooled (issue 33 item 2): per release, every
    detector's flagged rows summed over the seeds' histories and both halves
    as training half before the precision is taken (a single history's bin of
    2% of one half holds about 90 rows, whose precision has 3-4 points of
    standard deviation; the pooled one about 1). Per release: the share of
    the scored rows, per detector (precision, rows flagged), and the same
    for the control: the labels shuffled at random over the scored rows
    (SHUFFLES times, pooled alike), what counterfeits that cannot be told apart
    at all give: the noise floor of the test."""
    acc: dict[int, dict] = {}
    rng = np.random.default_rng(33)
    for seed in seeds:
        c = sqlanon.connect()
        n = publish(c, sa, m, releases=releases, start=persons, seed=seed, model=model, output=output)
        for r in range(1, n + 1):
            df = scored_rows(c, r, qi_of(sa))
            a = acc.setdefault(r, {"cf": 0.0, "w": 0.0, "det": {}, "ctl": {}})
            a["cf"] += float(df["cf"].sum())
            a["w"] += float((1 - df["ghost"]).sum())
            if df["cf"].sum() == 0:
                continue
            for parity in (0, 1):
                for name, (fc, fw, _) in flagged(df, parity).items():
                    x = a["det"].setdefault(name, [0.0, 0.0])
                    x[0] += fc
                    x[1] += fw
                for _ in range(SHUFFLES):
                    for name, (fc, fw, _) in flagged(df, parity, shuffled(df, rng)).items():
                        x = a["ctl"].setdefault(name, [0.0, 0.0])
                        x[0] += fc
                        x[1] += fw
        c.close()
    out = {}
    for r, a in acc.items():
        share = a["cf"] / a["w"]
        out[r] = {"share": share,
                  "det": {d: (fc / max(fw, 1e-9), fw) for d, (fc, fw) in a["det"].items()},
                  "ctl": {d: (fc / max(fw, 1e-9), fw) for d, (fc, fw) in a["ctl"].items()}}
    return out


def report(res: dict[int, dict]) -> str:
    lines = []
    for r, x in sorted(res.items()):
        s = x["share"]
        det = ", ".join(f"{d} {100 * (p - s):+.1f}" for d, (p, _) in sorted(x["det"].items(), key=lambda kv: -kv[1][0]))
        ctl = max((p - s for p, _ in x["ctl"].values()), default=0.0)
        lines.append(f"release {r}: share {s:.1%}; control (labels shuffled) best {100 * ctl:+.1f}; {det}")
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.parametrize("sa,m,model,output", [
    ("occupation", 5, "m-invariance", "anatomy"), ("occupation", 5, "m-invariance", "generalized"),
    ("occupation", 5, "sliced-bucket", "anatomy"),
    ("education", 4, "m-invariance", "anatomy"), ("education", 4, "m-invariance", "generalized"),
    ("education", 4, "sliced-bucket", "anatomy")])
def test_red_team_history(sa, m, model, output):
    """Issue 33 item 2, the red team's setting: 7,500 persons, 3 releases,
    pooled over seeds 0-2 and both halves as training half (``pooled``). With
    output generalized the project publishes qit/st as well: the detectors
    read qit. Every detector's precision is at most the share + TOLERANCE in
    every release with counterfeits; the control (labels shuffled) shows the
    floor: its best detector stays within 2.5 points of the share."""
    res = pooled(sa, m, model, output)
    msg = f"{model}/{output}, {sa} m = {m}:\n" + report(res)
    scored = 0
    for r, x in res.items():
        if x["share"] <= 0.02:
            continue
        scored += 1
        ctl = max(p for p, _ in x["ctl"].values())
        assert ctl <= x["share"] + 0.025, f"the control is above its floor; {msg}"
        worst = max(x["det"], key=lambda d: x["det"][d][0])
        assert x["det"][worst][0] <= x["share"] + TOLERANCE, f"release {r}: detector {worst}; {msg}"
    assert scored, "the history must have counterfeits for the test to mean anything"


if __name__ == "__main__":  # exploration: python tests/test_counterfeit_detect.py SA M RELEASES
    import sys
    import time
    c = sqlanon.connect()
    t = time.perf_counter()
    n = publish(c, sys.argv[1], int(sys.argv[2]), releases=int(sys.argv[3]))
    print(f"published in {time.perf_counter() - t:.1f} s")
    for r in range(1, n + 1):
        share, res, df = _check(c, r)
        print(f"release {r}: share {share:.3f}, ghosts {df['ghost'].sum():.0f}, rows {len(df)}")
        for d, (p, f) in sorted(res.items()):
            print(f"   {d:8s} precision {p:.3f}  flagged {f:.3f}")
    print(c.execute("SELECT release, ncp, counterfeits, published FROM sqlanon_private.c__ledger").fetchall()
          if c.execute("SELECT count(*) FROM duckdb_columns() WHERE table_name = 'c__ledger' "
                       "AND column_name = 'ncp'").fetchall()[0][0] else "")


@pytest.mark.slow
def test_sampled_sources_in_a_large_release(tmp_path):
    """A release of more than 65,536 persons with few counterfeits ranks a
    sample of the persons for the counterfeits' sources (step 9): every
    counterfeit still gets a tuple, none repeats a tuple inside its group, and
    a copied tuple is some person's outside the group."""
    con = sqlanon.connect(str(tmp_path / "big.duckdb"))
    n = 90_000
    con.execute(f"CREATE TABLE src AS SELECT range AS id, (hash(range, 1) % 70 + 17)::INTEGER AS age, "
                f"(hash(range, 2) % 2000)::INTEGER AS zip, ['F', 'M'][(hash(range, 3) % 2 + 1)::INTEGER] AS sex, "
                f"'v' || (hash(range, 4) % 12)::VARCHAR AS disease FROM range({n})")
    pub = sqlanon.Publisher(con, "big", source="src", id="id", qi=["age", "zip", "sex"], sa="disease", m=5)
    pub.release()
    con.execute("DELETE FROM src WHERE hash(id, 9) % 100 < 3")
    pub.release()
    ncf, persons = con.execute(
        "SELECT count(*) FILTER (WHERE id IS NULL), count(*) FILTER (WHERE id IS NOT NULL) "
        "FROM sqlanon_membership('big', 2)").fetchone()
    assert 0 < 16 * ncf < 65_536 < persons  # the sampled path (f < 1) ran
    # no more QI tuples repeated inside a group than among the real rows of
    # release 1 (the old group-mate copy made one per counterfeit; step 8 groups
    # QI neighbours, so real rows repeat a tuple now and then)
    rep = dict(con.execute("SELECT release, count(*) FROM (SELECT release, group_id, age, zip, sex FROM sqlanon_big_qit "
                           "GROUP BY ALL HAVING count(*) > 1) GROUP BY 1").fetchall())
    assert rep[2] <= rep[1] + ncf // 100
    # every release-2 tuple is a present person's or new: more rows with a tuple than
    # persons with it only by the counterfeits
    extra = con.execute("""
        SELECT sum(greatest(0, q.n - coalesce(p.n, 0))) FROM
            (SELECT age, zip, sex, count(*) AS n FROM sqlanon_big_qit WHERE release = 2 GROUP BY ALL) AS q
        LEFT JOIN (SELECT age, zip, sex, count(*) AS n FROM src GROUP BY ALL) AS p USING (age, zip, sex)""").fetchone()[0]
    assert extra == ncf


@pytest.mark.slow
@pytest.mark.parametrize("sa,m", [("occupation", 5), ("education", 4)])
def test_tuple_counts_of_counterfeits_follow_the_real_rows(con, sa, m):
    """Issue 33 item 2, step 9's tuple-count rule (docs/threat_model.md,
    "Tuple counts"): a copy used to add one to a tuple's count and a unique
    person was never copied, so no counterfeit's tuple occurred exactly twice
    (tuples of 2 rows 2% counterfeit, of 3-7 rows 17-19%, at a 12% share:
    occupation, release 3 of the red team's history). Read with the truth, on
    every row (not a learnt bin): no count of 2..7 rows holds counterfeits
    above the release's share + 5 points, and count 2 at least half the share
    (the rule before fails both)."""
    n = publish(con, sa, m, releases=3, start=7500)
    qi = qi_of(sa)
    for r in range(2, n + 1):
        df = scored_rows(con, r, qi)
        w = 1 - df["ghost"]
        share = df["cf"].sum() / w.sum()
        f = df["freq"].clip(upper=8)
        rate = df["cf"].groupby(f).sum() / w.groupby(f).sum()
        assert rate[2] >= share / 2, f"release {r}: tuples of 2 rows {rate[2]:.1%} counterfeit, share {share:.1%}"
        for c in range(2, 8):
            assert rate[c] <= share + TOLERANCE, \
                f"release {r}: tuples of {c} rows {rate[c]:.1%} counterfeit, share {share:.1%}: {rate.round(3).to_dict()}"

"""Issue 33, item 1: a row's QI rank inside its group does not predict its SA
beyond what the population's QI/SA correlation gives (SPEC §6b, last lines;
docs/threat_model.md, "Grouping order").

Adult (sqlanon.datasets.load_adult), a 3-release history of 7,500 persons
(sqlanon.histories), SA occupation (m = 5), education (m = 4) and
relationship (m = 2: Husband holds 40% of the persons, so no larger m is
eligible), every safe model and output. The adversary reads only the public
tables, as exported (file order):

- anatomy output (m-invariance, sliced-bucket, dynamic-anatomy): a group's
  rows in ``qit`` and its values in ``st`` (each value repeated ``count``
  times). It ranks the group's rows by age (ties in file order), ranks the
  values by the population's mean age of each value (background knowledge:
  the source's means, the strongest such adversary) and pairs them.
- generalized output (m-invariance): the ``published`` table alone. Every
  row of a group shows the same generalized QI (one range or set per
  column), so nothing but the file order ranks the rows inside a group; the
  adversary ranks by the age range's lower end, then file order, and pairs as
  above. (The project publishes ``qit``/``st`` too in that output: the
  anatomy adversary applies to it, with the same groups.)

The control is the same predictor after every row's age (real rows and
counterfeits) is redrawn from the persons of the source with the row's true
SA: what the age/SA correlation alone gives. The predictor may beat its
control by at most TOLERANCE. A guess is scored on the real rows (not
counterfeits, not ghosts) through the private membership: a person is matched
to the public rows of its group with its QI tuple.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from adult_history import publish_history, qi_of

import sqlanon

TOLERANCE = 0.02
PERSONS = 7500
RELEASES = 3


def publish(con, sa: str, m: int, model: str, output: str = "anatomy", seed: int = 0):
    """Publish a RELEASES-release Adult history; the sources stay as src1..srcN."""
    return publish_history(con, "r", sa, m, RELEASES, PERSONS, model, output, seed)


def _pair(rows: pd.DataFrame, values: pd.DataFrame, key: str, rank: dict) -> pd.DataFrame:
    """rows: group_id, <key>, tie (file order), row id; values: group_id, v (one row
    per published value occurrence). Pairs a group's rows in (key, tie) order with
    its values in population mean age order; returns row id -> predicted value."""
    r = rows.sort_values(["group_id", key, "tie"]).copy()
    r["i"] = r.groupby("group_id").cumcount()
    v = values.assign(mr=values["v"].map(rank)).sort_values(["group_id", "mr", "v"]).copy()
    v["i"] = v.groupby("group_id").cumcount()
    return r.merge(v[["group_id", "i", "v"]], on=["group_id", "i"], how="left")


def _truth(con, release: int, sa: str) -> pd.DataFrame:
    """Every published record of the release with its true SA and age (private):
    persons and ghosts with their source QI, counterfeits with age NULL."""
    QI = qi_of(sa)
    return con.execute(f"""
        SELECT m.group_id, m.id, m.is_counterfeit, m.{sa} AS v, s.age,
               row({', '.join('s.' + c for c in QI)})::VARCHAR AS k
        FROM sqlanon__membership_rows('r') AS m LEFT JOIN src{release} AS s ON s.id = m.id
        WHERE m.release = {release}""").df()


def accuracy(con, release: int, sa: str, output: str, rng) -> tuple[float, float, int]:
    """(predictor accuracy, control accuracy, scored rows) for one release."""
    QI = qi_of(sa)
    src = con.execute(f"SELECT {sa} AS v, age FROM src{release} WHERE age IS NOT NULL").df()
    mean = src.groupby("v")["age"].mean().sort_values()
    rank = {v: i for i, v in enumerate(mean.index)}
    truth = _truth(con, release, sa)
    real = truth[truth["id"].notna() & ~truth["is_counterfeit"]]
    if output == "generalized":
        pub = con.execute(f"""
            SELECT rowid AS rid, group_id, age, {sa} AS v FROM sqlanon_r_published WHERE release = {release}""").df()
        low = pd.to_numeric(pub["age"].astype(str).str.extract(r"^(-?\d+)")[0], errors="coerce")
        rows = pd.DataFrame({"group_id": pub["group_id"], "key": low.fillna(-1), "tie": pub["rid"],
                             "k": pub["rid"]})
        values = pub[["group_id", "v"]]
        pred = _pair(rows, values, "key", rank)
        # the published rows carry no per-row QI: every person of a group is
        # any of its rows, scored as the share of its group's rows predicted right
        hit = pred.assign(ok=pred["v"].notna()).groupby("group_id").apply(
            lambda g: g["v"].value_counts(normalize=True).to_dict(), include_groups=False)
        got = real.apply(lambda p: hit.get(p["group_id"], {}).get(p["v"], 0.0), axis=1)
    else:
        qit = con.execute(f"""
            SELECT rowid AS rid, group_id, age, row({', '.join(QI)})::VARCHAR AS k
            FROM sqlanon_r_qit WHERE release = {release}""").df()
        st = con.execute(f"SELECT group_id, {sa} AS v, count FROM sqlanon_r_st WHERE release = {release}").df()
        values = st.loc[st.index.repeat(st["count"])][["group_id", "v"]]
        rows = pd.DataFrame({"group_id": qit["group_id"], "key": qit["age"].fillna(-1), "tie": qit["rid"],
                             "k": qit["k"]})
        pred = _pair(rows, values, "key", rank)
        share = (pred.assign(n=1).groupby(["group_id", "k", "v"])["n"].sum()
                 / pred.groupby(["group_id", "k"]).size()).rename("p").reset_index()
        got = real.merge(share, on=["group_id", "k", "v"], how="left")["p"].fillna(0.0)
    # control: every record's age redrawn from the source's persons of its SA
    pools = {v: g.to_numpy() for v, g in src.groupby("v")["age"]}
    allages = src["age"].to_numpy()
    drawn = np.array([rng.choice(pools.get(v, allages)) for v in truth["v"]])
    ctl = truth.assign(key=drawn, tie=rng.permutation(len(truth)), k=np.arange(len(truth)))
    cpred = _pair(ctl[["group_id", "key", "tie", "k"]], truth[["group_id", "v"]], "key", rank)
    cpred = cpred.rename(columns={"v": "pv"}).merge(ctl[["k", "v", "id", "is_counterfeit"]], on="k")
    creal = cpred[cpred["id"].notna() & ~cpred["is_counterfeit"]]
    return float(got.mean()), float((creal["pv"] == creal["v"]).mean()), len(real)


def measure(con, sa: str, output: str, seed: int = 0) -> tuple[float, float]:
    """Predictor and control accuracy over every release (weighted by rows)."""
    rng = np.random.default_rng(seed)
    tot = [0.0, 0.0, 0]
    for r in range(1, RELEASES + 1):
        p, c, n = accuracy(con, r, sa, output, rng)
        tot = [tot[0] + p * n, tot[1] + c * n, tot[2] + n]
    return tot[0] / tot[2], tot[1] / tot[2]


# Relationship m = 2 under m-invariance was open (+2.5 points, 71.0% against
# 68.5%); measured again on wave 3's code: +1.7 (seed 0), +1.1 / +1.5 / +1.3
# (seeds 1-3); docs/threat_model.md, "Grouping order"
CASES = [(model, output, sa, m)
         for sa, m in [("occupation", 5), ("education", 4), ("relationship", 2)]
         for model, output in [("m-invariance", "anatomy"), ("m-invariance", "generalized"),
                               ("sliced-bucket", "anatomy"), ("dynamic-anatomy", "anatomy")]]


@pytest.mark.slow
@pytest.mark.parametrize("model,output,sa,m", CASES)
def test_rank_in_group_predicts_no_more_than_the_correlation(con, model, output, sa, m):
    publish(con, sa, m, model, output)
    pred, ctl = measure(con, sa, output)
    assert pred <= ctl + TOLERANCE, \
        f"{model}/{output}, {sa} m = {m}: the age rank inside a group predicts the SA for {pred:.1%} " \
        f"of the real rows, the age/SA correlation alone (control) {ctl:.1%}"


if __name__ == "__main__":  # exploration: python tests/test_rank_leak.py SA M MODEL OUTPUT
    import sys
    import time
    c = sqlanon.connect()
    t = time.perf_counter()
    publish(c, sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])
    t1 = time.perf_counter()
    p, q = measure(c, sys.argv[1], sys.argv[4])
    print(f"{sys.argv[1:]}: predictor {p:.3f}, control {q:.3f} (publish {t1 - t:.1f} s, measure "
          f"{time.perf_counter() - t1:.1f} s); ncp",
          [round(x, 2) for (x,) in c.execute("SELECT ncp FROM sqlanon_private.r__ledger ORDER BY release").fetchall()])

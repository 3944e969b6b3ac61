"""Publish forever (issue 32, SPEC §11): a safe model keeps publishing.

The two plain streams of the issue, reproduced on Adult (SA correlated with
the QI), must be published release after release with no refusal, and the
reference adversary of SPEC §6b (tests/reference_adversary.py: links by QI,
reads absence, intersects from every start release) must narrow nobody:

- sliced-bucket, SA education, m = 4, nothing but deletes and inserts: the
  gate refused releases 2.. because a counterfeit of release 1 copied the QI
  tuple of a person held back in the Cach (the cover rule of step 9 ran from
  release 2 on only), so the held person matched a group of other values;
- dynamic-anatomy, SA occupation, l = 4, nothing but birthdays (age + 1):
  the gate refused because a carried partition republished a member's home
  tuple with its old age, and the adversary, who knows the current age,
  linked the person to other partitions holding the new tuple.

Then random streams of each kind (hypothesis) for every safe model: inserts
and deletes only, QI changes (birthdays), SA updates with flip-backs,
re-inserts and returns with another value.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from reference_adversary import attack
from sqlanon import Publisher
from sqlanon.datasets import load_adult

QI = ["age", "workclass", "marital_status", "race", "sex", "native_country"]
SAFE = ("m-invariance", "sliced-bucket", "dynamic-anatomy")


def _pool(con, sa: str, seed: int = 3):
    load_adult(con, "adult", complete=True)
    return con.execute(f"SELECT id, {', '.join(QI)}, {sa} FROM adult ORDER BY hash(id, {int(seed)})").df()


def safe_frames(con, sa: str, kind: str, m: int, seed: int, *, releases: int, n0: int, churn: int):
    """A random stream of ``kind`` over an Adult pool (seeded from ``seed``), or
    None when some release's source holds fewer than m values (no safe release
    exists then: the refusal tests cover it)."""
    frames = stream(_pool(con, sa, seed=seed % 89), sa, kind, releases=releases, n0=n0, churn=churn, seed=seed)
    return None if any(f[sa].nunique() < m for f in frames) else frames


def stream(pool, sa: str, kind: str, *, releases: int, n0: int, churn: int, seed: int):
    """The source at each release (DataFrames) for one stream kind:
    ``insdel`` (churn deletes, 1.25 churn inserts), ``tiny`` (one delete and
    one insert: dynamic Anatomy refused such releases, the new person alone
    forming no partition), ``birthday`` (churn
    persons' age + 1), ``updates`` (inserts, deletes, churn SA updates of which
    a third flip back to an earlier value, re-inserts of deleted persons, some
    returning with another value), ``returns`` (``updates`` without the SA
    updates: inserts, deletes, re-inserts, half of them with another value)."""
    rng = np.random.default_rng(seed)
    cur = pool.copy()
    dom = sorted(cur[sa].unique())
    present, gone, nxt = set(range(n0)), [], n0
    had = {}
    out = []
    for r in range(releases):
        if r:
            ids = sorted(present)
            if kind == "tiny":  # one insert and one delete a release
                d = rng.choice(ids, 1, replace=False)
                present -= set(d)
                present.add(nxt)
                nxt += 1
            if kind in ("insdel", "updates", "returns"):
                d = rng.choice(ids, min(churn, len(ids) - 1), replace=False)
                present -= set(d)
                gone.extend(int(x) for x in d)
                k = int(churn * 1.25)
                present |= set(range(nxt, nxt + k))
                nxt += k
            if kind == "birthday":
                who = rng.choice(ids, churn, replace=False)
                cur.loc[who, "age"] += 1
            if kind in ("updates", "returns"):
                back = [gone.pop(int(rng.integers(len(gone)))) for _ in range(min(len(gone), churn // 2))]
                for pid in back[: len(back) // 2]:  # returns with another value
                    cur.loc[pid, sa] = dom[int(rng.integers(len(dom)))]
                present |= set(back)
            if kind == "updates":
                for pid in rng.choice(sorted(present), churn, replace=False):
                    old = cur.loc[pid, sa]
                    prev = [v for v in had.get(pid, []) if v != old]
                    new = prev[0] if prev and rng.random() < 0.33 else dom[int(rng.integers(len(dom)))]
                    had.setdefault(pid, []).append(old)
                    cur.loc[pid, sa] = new
        out.append(cur.loc[sorted(present)].copy())
    return out


def run(con, frames, model: str, sa: str, m: int, seed: int = 1):
    """Publish every frame; the results (a refusal raises SqlanonError)."""
    kw = {"l" if model == "dynamic-anatomy" else "m": m}
    pub, res = None, []
    for f in frames:
        con.register("sqlanon_test_frame", f)
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM sqlanon_test_frame")
        con.unregister("sqlanon_test_frame")
        if pub is None:
            pub = Publisher(con, "p", source="src", id="id", qi=QI, sa=sa, model=model, seed=seed, **kw)
        res.append(pub.release())
    return res


def sources(frames, sa: str):
    return [{row[0]: (tuple(row[1:-1]), row[-1]) for row in f[["id", *QI, sa]].itertuples(index=False)}
            for f in frames]


@pytest.mark.slow
@pytest.mark.parametrize("model, sa, m, kind", [
    ("sliced-bucket", "education", 4, "insdel"),
    ("dynamic-anatomy", "occupation", 4, "birthday"),
    ("dynamic-anatomy", "occupation", 4, "tiny"),
])
def test_the_issues_plain_streams_are_published(model, sa, m, kind):
    """The two streams of issue 32 at their size (4,000 persons), 4 releases."""
    con = sqlanon.connect()
    try:
        frames = stream(_pool(con, sa), sa, kind, releases=4, n0=4000,
                        churn=400 if kind == "insdel" else 30, seed=1)
        res = run(con, frames, model, sa, m)
        assert [r.exposed for r in res] == [0, 0, 0, 0]
        assert attack(con, "p", sources(frames, sa), qi=QI, sa=sa, m=m) == []
        if kind == "birthday":
            # a birthday is a QI change: the person is published at once,
            # with its current tuple, in its home partition (nothing held)
            assert [r.held for r in res] == [0, 0, 0, 0] and [r.suppressed for r in res] == [0, 0, 0, 0]
    finally:
        con.close()


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("SQLANON_FOREVER_EXAMPLES", "10")), deadline=None)
@given(model=st.sampled_from(SAFE), kind=st.sampled_from(["insdel", "tiny", "birthday", "updates"]),
       sa=st.sampled_from(["occupation", "education", "relationship"]), m=st.integers(2, 5),
       n0=st.integers(40, 500), seed=st.integers(0, 10**6))
def test_random_streams_are_published_and_narrow_nobody(model, kind, sa, m, n0, seed):
    """Random streams of each kind, tiny to mid-size sources: every release is
    published (no refusal: each of these sources has at least m values, so a
    safe release exists) and the reference adversary narrows nobody."""
    con = sqlanon.connect()
    try:
        frames = safe_frames(con, sa, kind, m, seed, releases=5, n0=n0, churn=max(2, n0 // 12))
        if frames is None:
            return  # no safe release exists: covered by the refusal tests
        res = run(con, frames, model, sa, m, seed=seed)
        assert [r.exposed for r in res] == [0] * len(res)
        assert attack(con, "p", sources(frames, sa), qi=QI, sa=sa, m=m) == []
    finally:
        con.close()


def test_users_see_the_fake_and_stale_shares(tmp_path, caplog):
    """Issue 32 item 6: the shares per release in ReleaseResult, status (CLI
    and sqlanon.publisher.shares), the notebook display and the report; a
    release above a threshold the user set (Python or project file) logs a
    warning with the trend."""
    import logging

    from click.testing import CliRunner

    from sqlanon.cli import main
    from sqlanon.display import release_html
    from sqlanon.projectfile import load
    from sqlanon.publisher import shares, status
    from sqlanon.report import build

    db = tmp_path / "s.duckdb"
    con = sqlanon.connect(db)
    try:
        frames = stream(_pool(con, "occupation"), "occupation", "updates", releases=3, n0=300, churn=30, seed=4)
        res = run(con, frames[:2], "m-invariance", "occupation", 5)
        assert res[1].counterfeits > 0
        for r in res:
            assert r.fake_share == r.counterfeits / r.published
            assert r.stale_share == (r.held + r.suppressed) / (r.survivors + r.new + r.reinserted + r.updated)
        led = shares(status(con, "p"))
        assert list(led["fake_share"]) == [r.fake_share for r in res]
        assert list(led["stale_share"]) == [r.stale_share for r in res]
        assert f"{res[1].fake_share:.1%}" in release_html(res[1])
        assert f"counterfeits {res[1].fake_share:.1%} of the published rows" in build(con, "p", plots=False).shares_text()
        # a threshold below the share: a warning naming it, with the release before
        con.register("f3", frames[2])
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM f3")
        con.unregister("f3")
        with caplog.at_level(logging.WARNING, logger="sqlanon"):
            r3 = Publisher(con, "p", source="src", id="id", qi=QI, sa="occupation", model="m-invariance", m=5,
                           seed=1, warn_fake=0.01).release()
        msg = [m for m in caplog.messages if "warn_fake = 1%" in m]
        assert len(msg) == 1 and f"counterfeits are {r3.fake_share:.1%}" in msg[0]
        assert f"release 2: {res[1].fake_share:.1%}" in msg[0]
        with pytest.raises(sqlanon.SqlanonError, match="warn_stale must be a share"):
            Publisher(con, "p", source="src", id="id", qi=QI, sa="occupation", m=5, warn_stale=5)
    finally:
        con.close()
    out = CliRunner().invoke(main, ["status", str(db), "p"])
    assert out.exit_code == 0 and "fake_share" in out.output and f"{r3.fake_share:.1%}" in out.output
    # the project file's [warn] table
    (tmp_path / "sqlanon.toml").write_text(
        'project = "p"\ndatabase = "s.duckdb"\nsource = "src"\nid = "id"\nqi = ["age"]\nsa = "occupation"\n'
        "[warn]\nfake = 0.2\nstale = 0.05\n")
    args = load(tmp_path / "sqlanon.toml").publisher_arguments()
    assert (args["warn_fake"], args["warn_stale"]) == (0.2, 0.05)
    (tmp_path / "bad.toml").write_text(
        'project = "p"\ndatabase = "s.duckdb"\nsource = "src"\nid = "id"\nqi = ["age"]\nsa = "occupation"\n'
        "[warn]\nfake = 20\n")
    with pytest.raises(sqlanon.SqlanonError, match=r"\[warn\] fake must be a share"):
        load(tmp_path / "bad.toml")


def _da_staleness(con, frames, sa: str, res):
    """Per release of a dynamic-anatomy stream: (stale persons, stale rows of
    persons gone) from the contract, and the persons published with another
    value although their partition had a free slot of their current value (a
    member row of that value whose person is not present with it)."""
    out = []
    for r, f in enumerate(frames, 1):
        cur = dict(zip(f["id"], f[sa]))
        mem = con.execute(f"SELECT id, group_id, {sa} FROM sqlanon_membership('p', ?) WHERE id IS NOT NULL",
                          [r]).fetchall()
        pub = {i: (g, v) for i, g, v in mem}
        assert len(pub) == len(mem)  # one row per person
        wrong = {i for i, v in cur.items() if i in pub and pub[i][1] != v}
        absent = {i for i in cur if i not in pub}
        gone = {i for i in pub if i not in cur}
        free = {(g, v) for i, (g, v) in pub.items() if cur.get(i) != v}  # member slots nobody present uses
        missed = {i for i in wrong if (pub[i][0], cur[i]) in free}
        out.append((len(wrong) + len(absent) + len(gone), absent, missed))
        assert res[r - 1].held + res[r - 1].suppressed == len(wrong) + len(absent) + len(gone)
    return out


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("SQLANON_FOREVER_EXAMPLES", "10")), deadline=None)
@given(kind=st.sampled_from(["updates", "birthday", "tiny", "insdel"]),
       sa=st.sampled_from(["occupation", "education", "relationship"]), m=st.integers(2, 5),
       n0=st.integers(40, 300), seed=st.integers(0, 10**6))
def test_dynamic_anatomy_staleness(kind, sa, m, n0, seed):
    """Issue 32 item 2 for dynamic-anatomy (docs/dynamic_anatomy.md,
    "Staleness"): every person of the source is published in every release
    (a new, re-inserted or returning person in the release it appears in:
    bound 0 for presence); a QI change, a flip-back and a return with the home
    value are published with the current value at once; an SA update is
    published with its current value in the release it happens whenever its
    partition has a free slot of that value (the re-deal of step 5 misses
    none), and otherwise stays stale -- no bound exists then under
    Definition 6, see the docs. held + suppressed counts each stale person or
    row once. No refusal, and the reference adversary narrows nobody."""
    con = sqlanon.connect()
    try:
        frames = safe_frames(con, sa, kind, m, seed, releases=5, n0=n0, churn=max(2, n0 // 12))
        if frames is None:
            return
        res = run(con, frames, "dynamic-anatomy", sa, m, seed=seed)
        for stale, absent, missed in _da_staleness(con, frames, sa, res):
            assert absent == set() and missed == set()
            if kind == "birthday":  # QI changes only: nothing is stale
                assert stale == 0
        assert [r.exposed for r in res] == [0] * len(res)
        assert attack(con, "p", sources(frames, sa), qi=QI, sa=sa, m=m) == []
    finally:
        con.close()


def _da_partitions(con, releases: int, sa: str):
    """Per release r (1-based list index r - 1): id -> (group, published value)
    of the persons, and group -> value multiset (Counter), both read from the
    contract (membership; counterfeits count in the multisets)."""
    from collections import Counter

    out = []
    for r in range(1, releases + 1):
        mem = con.execute(f"SELECT id, group_id, {sa} FROM sqlanon_membership('p', ?)", [r]).fetchall()
        ms: dict = {}
        for _i, g, v in mem:
            ms.setdefault(g, Counter())[v] += 1
        out.append(({i: (g, v) for i, g, v in mem if i is not None}, ms))
    return out


@pytest.mark.slow
def test_dynamic_anatomy_refills_and_returns():
    """Issue 32 item 2, the refill of deleted members' rows (docs/dynamic_anatomy.md,
    "Staleness"): random streams of deletes, inserts, re-inserts and returns
    with another value (``returns``), and the same with SA updates
    (``updates``). A deleted member's row may be taken by a new or returning
    person of its value; the deleted person, if it returns, must be published
    in a partition with the value multiset of the one it left. Checked from
    the contract, independently of the SQL: Definition 6 against EVERY earlier
    release (tests/daa_reference.py: a person's partitions in any two releases
    have equal multisets or differences of >= l distinct values both ways),
    every partition l-diverse and never changing its multiset; a person
    published in another partition than before (a returner, or a member of a
    merged partition) is in one of the same multiset, and with its current
    value when that value is in it (bound 0);
    nobody absent, no free slot missed; no refusal; neither the reference
    adversary nor the Definition-6 adversary (tests/adversary_da.py, absence
    counted) narrows anybody. Over the sample, rows of deleted persons were
    taken and persons came back to another partition (the test exercises the
    refill)."""
    from adversary_da import narrowed, narrowest, read_history
    from daa_reference import definition6_violations

    seen = {"moved": 0, "taken": 0, "superset": 0}

    @settings(max_examples=int(os.environ.get("SQLANON_FOREVER_EXAMPLES", "10")), deadline=None,
              derandomize=True, database=None)
    @given(kind=st.sampled_from(["returns", "updates"]), sa=st.sampled_from(["occupation", "education"]),
           m=st.integers(2, 5), n0=st.integers(40, 300), seed=st.integers(0, 10**6))
    def check(kind, sa, m, n0, seed):
        con = sqlanon.connect()
        try:
            frames = safe_frames(con, sa, kind, m, seed, releases=6, n0=n0, churn=max(4, n0 // 8))
            if frames is None:
                return
            res = run(con, frames, "dynamic-anatomy", sa, m, seed=seed)
            assert [r.exposed for r in res] == [0] * len(res)
            for _stale, absent, missed in _da_staleness(con, frames, sa, res):
                assert absent == set() and missed == set()
            parts = _da_partitions(con, len(frames), sa)
            fixed: dict = {}
            for r, (pub, ms) in enumerate(parts):
                for g, counts in ms.items():
                    assert len(counts) >= m
                    assert fixed.setdefault(g, counts) == counts  # a partition never changes its multiset
                # Definition 6 against every earlier release, through the persons they share
                assign = {i: g for i, (g, _v) in pub.items()}
                vals = {i: v for i, (_g, v) in pub.items()}
                # counterfeits: one key each (a padded partition may hold two of one value)
                cf_rows = con.execute(f"SELECT group_id, {sa} FROM sqlanon_membership('p', ?) WHERE id IS NULL",
                                      [r + 1]).fetchall()
                for n, (g, v) in enumerate(cf_rows):
                    assign[("cf", r, n)], vals[("cf", r, n)] = g, v
                for q in range(r):
                    old = parts[q][0]
                    oa = {i: g for i, (g, _v) in old.items()}
                    ov = {i: v for i, (_g, v) in old.items()}
                    ocf = con.execute(f"SELECT group_id, {sa} FROM sqlanon_membership('p', ?) WHERE id IS NULL",
                                      [q + 1]).fetchall()
                    for n, (g, v) in enumerate(ocf):
                        oa[("cf", q, n)], ov[("cf", q, n)] = g, v
                    assert [x for x in definition6_violations(oa, ov, assign, vals, m)
                            if x[0] != "not-l-diverse"] == []
                if r == 0:
                    continue
                cur = dict(zip(frames[r]["id"], frames[r][sa]))
                last = {}
                for q in range(r):
                    last.update({i: gv[0] for i, gv in parts[q][0].items()})
                for i, (g, v) in pub.items():
                    if i in last and last[i] != g:  # elsewhere than last time: a returner or a merged member
                        seen["moved"] += 1
                        h = last[i]
                        hq = max(q for q in range(r) if parts[q][0].get(i, (None,))[0] == h)
                        old = parts[hq][1][h]
                        if ms[g] != old:  # a superset partition (universal): S(h) within S(g), >= l more values
                            assert not (old - ms[g]) and len(set(ms[g]) - set(old)) >= m
                            seen["superset"] += 1
                        if cur[i] in ms[g]:
                            assert v == cur[i]
                prev_ids = set(parts[r - 1][0])
                seen["taken"] += sum(1 for i in prev_ids if i not in pub and i not in cur
                                     and parts[r - 1][0][i][0] in ms)
            assert attack(con, "p", sources(frames, sa), qi=QI, sa=sa, m=m) == []
            rows = [[(i, *q, v) for i, (q, v) in src.items()] for src in sources(frames, sa)]
            qit, st_, presence, suppressed = read_history(con, "p", rows, QI, sa)
            assert narrowed(narrowest(qit, st_, presence, suppressed), m) == {}
        finally:
            con.close()

    check()
    assert seen["moved"] > 0 and seen["taken"] > 0 and seen["superset"] > 0, seen

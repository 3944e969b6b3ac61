"""sqlanon.dynamic_anatomy.release against the pure-Python reference
(tests/daa_reference.py): seed 004 §4.1 and random histories."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from daa_reference import definition6_violations, exhaustive_daa
from sqlanon.dynamic_anatomy import release
from test_dynamic_anatomy_reference import T1, T5, T11


def _load(con, name, rows):
    con.execute(f"CREATE OR REPLACE TABLE {name} (id BIGINT, group_id BIGINT, sa VARCHAR)")
    if rows:
        con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", rows)


def _run(con, prev_assign, prev_sa, cur, l):
    _load(con, "prev", [(i, g, prev_sa[i]) for i, g in prev_assign.items()])
    _load(con, "cur", [(i, None, v) for i, v in cur.items()])
    res = release(con, "cur", "prev" if prev_assign else None, l=l)
    rows = con.execute("SELECT id, group_id, sa, held FROM sqlanon__dyn_release").fetchall()
    return res, rows


def test_seed004_section41_example(con):
    res, rows = _run(con, T5, T1, T11, 3)
    assign = {i: g for i, g, _, _ in rows}
    sa = {i: v for i, _, v, _ in rows}
    assert definition6_violations(T5, T1, assign, sa, 3) == []
    held = {i for i, _, _, h in rows if h}
    assert held == {12} and sa[12] == "Cancer"  # old version held, new suppressed
    assert 5 not in assign  # (48, Female, 60632, Cancer) suppressed, as in Table 12
    assert res == {"published": 12, "groups": 3, "held": 1, "suppressed": 2, "dl": 89}


SA = st.sampled_from("abcde")


@settings(max_examples=60)
@given(
    st.dictionaries(st.integers(1, 30), SA, max_size=25),
    st.lists(st.tuples(st.integers(1, 40), st.one_of(st.none(), SA)), max_size=25),
    st.integers(2, 3),
)
def test_random_history_meets_definition6(con, first, changes, l):
    res1, rows1 = _run(con, {}, {}, first, l)
    a1 = {i: g for i, g, _, _ in rows1}
    s1 = {i: v for i, _, v, _ in rows1}
    assert definition6_violations({}, {}, a1, s1, l) == []
    cur = dict(first)
    for i, v in changes:  # None = delete
        if v is None:
            cur.pop(i, None)
        else:
            cur[i] = v
    res2, rows2 = _run(con, a1, s1, cur, l)
    a2 = {i: g for i, g, _, _ in rows2}
    s2 = {i: v for i, _, v, _ in rows2}
    assert definition6_violations(a1, s1, a2, s2, l) == []
    # the new version of an updated person is never published
    for i, g, v, h in rows2:
        if not h:
            assert cur.get(i) == v
    assert res2["published"] == len(rows2) and res2["held"] == sum(h for *_, h in rows2)


@settings(max_examples=25)
@given(
    st.dictionaries(st.integers(1, 8), SA, min_size=2, max_size=6),
    st.dictionaries(st.integers(1, 8), SA, min_size=1, max_size=5),
    st.integers(2, 3),
)
def test_never_better_than_exhaustive_daa(con, prev_sa, cur, l):
    prev = exhaustive_daa({}, {}, prev_sa, l)
    res, rows = _run(con, prev.assign, prev.sa, cur, l)
    best = exhaustive_daa(prev.assign, prev.sa, cur, l)
    assert best.dl <= res["dl"]


def _history(con, publish, s, n_releases=3):
    con.execute(
        f"CREATE OR REPLACE TABLE src AS SELECT range AS id, range AS age, 'd' || (hash(range + {s}) % 3) AS dis "
        f"FROM range(8)"
    )
    publish()
    nxt = 8
    for r in range(n_releases - 1):
        con.execute(f"DELETE FROM src WHERE hash(id + {s} + {r}) % 4 = 0")
        con.execute(f"UPDATE src SET dis = 'd' || (hash(id + {s} + {r} + 1) % 3) WHERE hash(id * {s} + {r}) % 5 = 0")
        con.execute(
            f"INSERT INTO src SELECT range, range, 'd' || (hash(range * {s} + {r}) % 3) FROM range({nxt}, {nxt + 3})"
        )
        nxt += 3
        publish()


def test_audit_finds_no_comparison_attack_on_dynamic_but_some_on_anatomy(con):
    from sqlanon import dynamic_anatomy, naive

    found = {"dyn": 0, "nai": 0}
    for s in range(20):
        _history(con, lambda: dynamic_anatomy.publish(con, f"dyn{s}", "src", qi=["age"], sa="dis", l=2, seed=s), s)
        _history(con, lambda: naive.publish(con, f"nai{s}", "src", qi=["age"], sa="dis", l=2, seed=s), s)
        for p in ("dyn", "nai"):
            found[p] += con.execute(f"SELECT count(*) FROM sqlanon_comparison_attacks('{p}{s}', 2)").fetchall()[0][0]
    assert found["dyn"] == 0
    assert found["nai"] > 0

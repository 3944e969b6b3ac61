"""Static checks vs slow obvious pure-Python references (docs/checks.md)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings, strategies as st

import sqlanon
from sqlanon import checks
from sqlanon.datasets import load_adult


# ---------- references: plain Python over a list of row dicts ----------
def ref_groups(rows, qi, sa=None):
    g = defaultdict(list)
    for r in rows:
        g[tuple(r[c] for c in qi)].append(r[sa] if sa else None)
    return g


def ref_k(rows, qi):
    g = ref_groups(rows, qi)
    return {"k": min((len(v) for v in g.values()), default=None), "groups": len(g), "rows": len(rows)}


def ref_l(rows, qi, sa):
    g = ref_groups(rows, qi, sa)
    if not g:
        return {"distinct_l": None, "entropy_l": None, "alpha": None}
    dl, el, al = [], [], []
    for vals in g.values():
        c = Counter(vals)
        n = len(vals)
        dl.append(len(c))
        el.append(math.exp(-sum(x / n * math.log(x / n) for x in c.values())))
        al.append(max(c.values()) / n)
    return {"distinct_l": min(dl), "entropy_l": min(el), "alpha": max(al)}


def ref_cl(rows, qi, sa, l):
    g = ref_groups(rows, qi, sa)
    worst = None
    for vals in g.values():
        r = sorted(Counter(vals).values(), reverse=True)
        if len(r) < l:
            return None
        c = r[0] / sum(r[l - 1:])
        worst = c if worst is None else max(worst, c)
    return worst


def ref_elig(rows, sa, m):
    c = Counter(r[sa] for r in rows)
    mx = max(c.values(), default=None)
    n = len(rows)
    return {"eligible": True if mx is None else mx * m <= n, "max_count": mx, "rows": n,
            "distinct_values": len(c), "max_m": None if mx is None else n // mx}


def load(con, rows, name="t"):
    con.execute(f'CREATE OR REPLACE TABLE "{name}" (q1 BIGINT, q2 VARCHAR, s VARCHAR)')
    if rows:
        con.executemany(f'INSERT INTO "{name}" VALUES (?, ?, ?)', [[r["q1"], r["q2"], r["s"]] for r in rows])


row_st = st.fixed_dictionaries({
    "q1": st.one_of(st.none(), st.integers(0, 3)),
    "q2": st.one_of(st.none(), st.sampled_from(["a", "b"])),
    "s": st.one_of(st.none(), st.sampled_from(["x", "y", "z", "w"])),
})


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@settings(max_examples=60)
@given(rows=st.lists(row_st, max_size=30), qi=st.sampled_from([["q1"], ["q2"], ["q1", "q2"]]),
       l=st.integers(1, 4), m=st.integers(2, 6))
def test_checks_match_reference(con, rows, qi, l, m):
    load(con, rows)
    assert checks.k_anonymity(con, "t", qi) == ref_k(rows, qi)
    got = checks.l_diversity(con, "t", qi, "s")
    exp = ref_l(rows, qi, "s")
    for key in exp:
        assert close(got[key], exp[key]), (key, got, exp)
    p = checks.profile(con, "t", qi, "s")
    assert {k: p[k] for k in ("k", "groups", "rows")} == ref_k(rows, qi)
    assert close(checks.recursive_cl(con, "t", qi, "s", l)["c_required"], ref_cl(rows, qi, "s", l))
    assert checks.m_eligibility(con, "t", "s", m) == ref_elig(rows, "s", m)
    g = ref_groups(rows, qi, "s")
    viol = checks.k_anonymity_violations(con, "t", qi, m)
    assert len(viol) == sum(1 for v in g.values() if len(v) < m)
    lv = checks.l_diversity_violations(con, "t", qi, "s", l)
    assert len(lv) == sum(1 for v in g.values() if len(set(v)) < l)
    hist = checks.group_sizes(con, "t", qi)
    assert dict(zip(hist.group_size, hist.groups)) == dict(Counter(len(v) for v in g.values()))


def test_null_qi_is_one_group(con):
    rows = [{"q1": None, "q2": "a", "s": "x"}, {"q1": None, "q2": "a", "s": None}]
    load(con, rows)
    assert checks.k_anonymity(con, "t", ["q1", "q2"])["k"] == 2
    assert checks.l_diversity(con, "t", ["q1"], "s")["distinct_l"] == 2  # NULL SA counts as a value


def test_recursive_cl_example(con):
    # counts in one group: 5,3,2,1 -> l=2: 5/(3+2+1); l=3: 5/(2+1); l=5: fewer values -> NULL
    rows = [{"q1": 1, "q2": "a", "s": s} for s, n in [("x", 5), ("y", 3), ("z", 2), ("w", 1)] for _ in range(n)]
    load(con, rows)
    assert checks.recursive_cl(con, "t", ["q1"], "s", 2)["c_required"] == pytest.approx(5 / 6)
    assert checks.recursive_cl(con, "t", ["q1"], "s", 3)["c_required"] == pytest.approx(5 / 3)
    assert checks.recursive_cl(con, "t", ["q1"], "s", 5)["c_required"] is None


def test_adult_against_pandas(con):
    load_adult(con, "adult")
    df = con.execute("SELECT * FROM adult").df()
    qi = ["age", "sex", "race"]
    sizes = df.groupby(qi, dropna=False).size()
    assert checks.k_anonymity(con, "adult", qi) == {"k": int(sizes.min()), "groups": len(sizes), "rows": len(df)}
    per = df.groupby(qi + ["occupation"], dropna=False).size()
    distinct = per.groupby(level=list(range(len(qi))), dropna=False).size()
    share = (per / per.groupby(level=list(range(len(qi))), dropna=False).transform("sum")).max()
    got = checks.l_diversity(con, "adult", qi, "occupation")
    assert got["distinct_l"] == int(distinct.min())
    assert got["alpha"] == pytest.approx(float(share))
    vc = df["occupation"].value_counts(dropna=False)
    e = checks.m_eligibility(con, "adult", "occupation", 3)
    assert e["max_count"] == int(vc.max()) and e["rows"] == len(df) and e["max_m"] == len(df) // int(vc.max())


# ---------- bad input ----------
@pytest.mark.parametrize("name", ["my table", 'Weird"Name'])
def test_names_needing_quotes(con, name):
    load(con, [{"q1": 1, "q2": "a", "s": "x"}], name=name.replace('"', '""'))
    assert checks.k_anonymity(con, name, ["q1"])["k"] == 1
    # in SQL, a name with special characters is passed quoted, as query_table parses it
    quoted = '"' + name.replace('"', '""') + '"'
    assert con.execute("SELECT k FROM sqlanon_k_anonymity(?, ['q1'])", [quoted]).fetchall() == [(1,)]
    with pytest.raises(Exception, match="zz"):
        con.execute("SELECT k FROM sqlanon_k_anonymity(?, ['zz'])", [quoted]).fetchall()


def test_injection_is_not_run(con):
    load(con, [{"q1": 1, "q2": "a", "s": "x"}])
    evil = "t'; DROP TABLE t; --"
    with pytest.raises(sqlanon.SqlanonError):
        checks.k_anonymity(con, evil, ["q1"])
    with pytest.raises(Exception):
        con.execute("SELECT * FROM sqlanon_k_anonymity(?, ['q1'])", [evil]).fetchall()
    with pytest.raises(Exception):
        con.execute("SELECT * FROM sqlanon_k_anonymity('t', [?])", ["q1\"; DROP TABLE t; --"]).fetchall()
    assert con.execute("SELECT count(*) FROM t").fetchall() == [(1,)]


def test_bad_input_errors(con):
    load(con, [{"q1": 1, "q2": "a", "s": "x"}])
    for fn in (lambda: checks.k_anonymity(con, "nope", ["q1"]),
               lambda: checks.k_anonymity(con, "t", []),
               lambda: checks.k_anonymity(con, "t", ["zz"]),
               lambda: checks.m_eligibility(con, "t", "s", 1),
               lambda: checks.m_eligibility(con, "t", "s", 2.5),
               lambda: checks.l_diversity(con, "t", ["q1"], "nosa")):
        with pytest.raises(sqlanon.SqlanonError):
            fn()
    for sql, word in [("SELECT * FROM sqlanon_k_anonymity('t', ['q1', 'zz'])", '"zz"'),
                      ("SELECT * FROM sqlanon_k_anonymity('t', [])", "empty"),
                      ("SELECT * FROM sqlanon_m_eligibility('t', 's', 1)", "m must"),
                      ("SELECT * FROM sqlanon_m_eligibility('t', 's', 2.5)", "m must"),
                      ("SELECT * FROM sqlanon_k_anonymity('nope', ['q1'])", "nope"),
                      # all requested names missing / empty QI: our message, not a binder error
                      ("SELECT * FROM sqlanon_k_anonymity('t', ['zz'])", '"zz"'),
                      ("SELECT * FROM sqlanon_profile('t', ['zz'], 's')", '"zz"'),
                      ("SELECT * FROM sqlanon_profile('t', [], 's')", "empty"),
                      ("SELECT * FROM sqlanon_recursive_cl('t', [], 's', 2)", "empty"),
                      ("SELECT * FROM sqlanon_recursive_cl('t', ['zz'], 's', 2)", '"zz"'),
                      ("SELECT * FROM sqlanon_recursive_cl('t', ['q1'], 's', 0)", "l must"),
                      ("SELECT * FROM sqlanon_recursive_cl('t', ['q1'], 's', 2.5)", "l must")]:
        with pytest.raises(Exception, match=word):
            con.execute(sql).fetchall()


def ref_m_unique(rows, qi, sa, m):
    g = ref_groups(rows, qi, sa)
    bad = [v for v in g.values() if len(v) < m or max(Counter(v).values()) > 1]
    return {"m_unique": not bad, "min_group_size": min((len(v) for v in g.values()), default=None),
            "max_repeat": max((max(Counter(v).values()) for v in g.values()), default=None),
            "violating_groups": len(bad)}


@settings(max_examples=40)
@given(rows=st.lists(row_st, max_size=25), qi=st.sampled_from([["q1"], ["q1", "q2"]]), m=st.integers(2, 4))
def test_m_uniqueness_matches_reference(con, rows, qi, m):
    load(con, rows)
    assert checks.m_uniqueness(con, "t", qi, "s", m) == ref_m_unique(rows, qi, "s", m)


def test_m_uniqueness_bad_m(con):
    load(con, [{"q1": 1, "q2": "a", "s": "x"}])
    with pytest.raises(sqlanon.SqlanonError):
        checks.m_uniqueness(con, "t", ["q1"], "s", 1)
    with pytest.raises(Exception, match="m must"):
        con.execute("SELECT * FROM sqlanon_m_uniqueness('t', ['q1'], 's', 1.5)").fetchall()


def ref_t(rows, qi, sa, ordered):
    allv = Counter(r[sa] for r in rows)
    keys = sorted(allv, key=lambda v: (v is None, v))
    n = len(rows)
    worst = None
    for vals in ref_groups(rows, qi, sa).values():
        c = Counter(vals)
        d = [c.get(v, 0) / len(vals) - allv[v] / n for v in keys]
        if not ordered:
            e = 0.5 * sum(abs(x) for x in d)
        elif len(keys) <= 1:
            e = 0.0
        else:
            e = sum(abs(sum(d[: i + 1])) for i in range(len(keys) - 1)) / (len(keys) - 1)
        worst = e if worst is None else max(worst, e)
    return worst


@settings(max_examples=40)
@given(rows=st.lists(st.fixed_dictionaries({"q1": st.one_of(st.none(), st.integers(0, 3)),
                                            "q2": st.sampled_from(["a", "b"]),
                                            "s": st.one_of(st.none(), st.integers(0, 5))}), max_size=25),
       qi=st.sampled_from([["q1"], ["q1", "q2"]]), ordered=st.booleans())
def test_t_closeness_matches_reference(con, rows, qi, ordered):
    con.execute("CREATE OR REPLACE TABLE t (q1 BIGINT, q2 VARCHAR, s BIGINT)")
    if rows:
        con.executemany("INSERT INTO t VALUES (?, ?, ?)", [[r["q1"], r["q2"], r["s"]] for r in rows])
    got = checks.t_closeness(con, "t", qi, "s", ordered)["t"]
    assert close(got, ref_t(rows, qi, "s", ordered))
    assert checks.t_closeness(con, "t", qi, "s")["t"] == checks.t_closeness(con, "t", qi, "s", True)["t"]

"""m-eligibility targets (seed 000): the paper's worked examples, slow obvious
reference implementations, an exact ILP (scipy milp) against ``optimal``, the
SQL macros against the Python functions, materialization, and bad input."""

from __future__ import annotations

import math
import subprocess
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

from sqlanon import SqlanonError
from sqlanon.eligibility import (
    METHODS,
    _fill,
    cost,
    distance,
    is_eligible,
    modifications,
    plan,
    targets,
)

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- references


def ilp(counts: list[int], m: int, *, allow_add: bool = True, allow_del: bool = True) -> int:
    """Seed 000 section III-C integer programme: min sum z_i, z_i >= |c_i - x_i|,
    m x_i <= sum x, x, z integer >= 0. With allow_add/allow_del False, x <= c or x >= c."""
    l = len(counts)
    c = np.array(counts, dtype=float)
    obj = np.r_[np.zeros(l), np.ones(l)]
    rows, lo, hi = [], [], []
    for i in range(l):
        r = np.zeros(2 * l)
        r[:l] = -1.0
        r[i] += m
        rows.append(r), lo.append(-np.inf), hi.append(0.0)  # m x_i - sum x <= 0
        r = np.zeros(2 * l)
        r[i], r[l + i] = -1.0, -1.0
        rows.append(r), lo.append(-np.inf), hi.append(-c[i])  # c_i - x_i <= z_i
        r = np.zeros(2 * l)
        r[i], r[l + i] = 1.0, -1.0
        rows.append(r), lo.append(-np.inf), hi.append(c[i])  # x_i - c_i <= z_i
    xlo = np.zeros(2 * l)
    xhi = np.full(2 * l, np.inf)
    if not allow_add:
        xhi[:l] = c
    if not allow_del:
        xlo[:l] = c
    res = milp(
        obj,
        constraints=LinearConstraint(np.array(rows), lo, hi),
        integrality=np.ones(2 * l),
        bounds=Bounds(xlo, xhi),
        options={"mip_rel_gap": 0.0},  # HiGHS stops at a 1e-4 relative gap by default: not exact
    )
    assert res.status == 0, res.message
    return int(round(res.fun))


def ref_alg1(counts, m):
    """Algorithm 1 literally: while not eligible, add to a least frequent value (first on ties)."""
    x = list(counts)
    while m * max(x) > sum(x):
        i = min(range(len(x)), key=lambda j: (x[j], j))
        x[i] += 1
    return x


def ref_alg2(counts, m):
    """Algorithm 2 literally: remove r_i = max(0, ceil((m c_i - n)/(m-1))) of every value, repeat."""
    x = list(counts)
    while Fraction(max(x)) > Fraction(sum(x), m):
        n = sum(x)
        x = [v - max(0, math.ceil(Fraction(m * v - n, m - 1))) for v in x]
    return x


def ref_alg3(counts, m, prefer="delete"):
    """Algorithm 3 literally, with exact fractions for R_add / R_del."""
    x = list(counts)
    while Fraction(max(x)) > Fraction(sum(x), m):
        lo = min(range(len(x)), key=lambda j: (x[j], j))
        hi = min(range(len(x)), key=lambda j: (-x[j], j))
        t_add, t_del = list(x), list(x)
        t_add[lo] += 1
        t_del[hi] -= 1
        r_add = sum(max(Fraction(0), v - Fraction(sum(t_add), m)) for v in t_add)
        r_del = sum(max(Fraction(0), v - Fraction(sum(t_del), m)) for v in t_del)
        if r_del < r_add or (r_del == r_add and prefer == "delete"):
            x = t_del
        else:
            x = t_add
    return x


def brute_optimal(counts, m):
    """Every target vector with entries in [0, max(c)] (tiny inputs only)."""
    import itertools

    best = None
    for x in itertools.product(range(max(counts) + 1), repeat=len(counts)):
        if sum(x) and m * max(x) <= sum(x):
            d = distance(counts, x)
            best = d if best is None else min(best, d)
    return best


# --------------------------------------------------------------------------- strategies


@st.composite
def count_vectors(draw, max_l=12, max_c=60):
    """(counts, m) of several shapes: general, already eligible, l = m, one dominant value."""
    kind = draw(st.sampled_from(["general", "eligible", "l_eq_m", "dominant", "flat"]))
    l = draw(st.integers(2, max_l))
    c = draw(st.lists(st.integers(1, max_c), min_size=l, max_size=l))
    if kind == "dominant":
        c[draw(st.integers(0, l - 1))] = draw(st.integers(max_c, 20 * max_c))
    if kind == "flat":
        base = draw(st.integers(1, max_c))
        c = [base + draw(st.integers(0, 2)) for _ in range(l)]
    m = l if kind == "l_eq_m" else draw(st.integers(2, l))
    if kind == "eligible":
        # lower m until the vector is eligible (2-eligible may not exist: then general)
        while m > 2 and not is_eligible(c, m):
            m -= 1
    return c, m


def check_optimal(c, m):
    t = targets(c, m)
    assert len(t) == len(c) and all(v >= 0 for v in t)
    assert is_eligible(t, m)
    best = ilp(c, m)
    assert distance(c, t) == best == modifications(c, m)
    return t, best


# --------------------------------------------------------------------------- paper examples


def test_table_ii_exact():
    assert targets([5, 3, 1, 1], 3, "counterfeit") == [5, 4, 3, 3]
    assert targets([5, 3, 1, 1], 3, "delete") == [2, 2, 1, 1]
    assert targets([5, 3, 1, 1], 3, "hybrid") == [3, 3, 2, 1]
    assert distance([5, 3, 1, 1], targets([5, 3, 1, 1], 3)) == 3


def test_hybrid_example_two_modifications():
    c = [10, 9, 7, 1]
    assert targets(c, 3, "counterfeit") == [10, 9, 7, 4]
    assert targets(c, 3, "delete") == [8, 8, 7, 1]
    for meth in ("hybrid", "optimal"):
        assert distance(c, targets(c, 3, meth)) == 2
    assert cost(c, 3)["optimal"] == {"additions": 1, "deletions": 1, "modifications": 2}


def test_algorithm_3_is_not_always_optimal():
    c = [25, 17, 16, 13, 13, 10, 8, 5, 3]
    assert targets(c, 7, "hybrid") == [14, 14, 14, 13, 13, 10, 8, 6, 6]
    assert distance(c, targets(c, 7, "hybrid")) == 20
    assert targets(c, 7) == [13, 13, 13, 13, 13, 10, 8, 5, 3]
    assert ilp(c, 7) == 19
    occupation = [1843, 3770, 9, 4099, 4066, 994, 1370, 2002, 3295, 149, 4140, 649, 3650, 928, 1597]
    assert (distance(occupation, targets(occupation, 8, "hybrid")), modifications(occupation, 8)) == (153, 152)


def test_tau_safety_counterexample():
    # section IV-B: {10, 2} needs 8 counterfeits for 2-eligibility, not m - 1 = 1
    assert targets([10, 2], 2, "counterfeit") == [10, 10]
    assert cost([10, 2], 2)["counterfeit"]["additions"] == 8


# --------------------------------------------------------------------------- properties


@settings(max_examples=150)
@given(count_vectors())
def test_optimal_equals_ilp(cv):
    check_optimal(*cv)


@settings(max_examples=60)
@given(st.lists(st.integers(1, 6), min_size=2, max_size=4), st.data())
def test_optimal_equals_brute_force(c, data):
    m = data.draw(st.integers(2, len(c)))
    assert distance(c, targets(c, m)) == brute_optimal(c, m)


@settings(max_examples=150)
@given(count_vectors(), st.integers(0, 3))
def test_methods_against_references(cv, seed):
    c, m = cv
    n, top = sum(c), max(c)
    res = {meth: targets(c, m, meth) for meth in METHODS if meth != "random"}
    try:  # a random walk may practically never reach eligibility when m is close to l
        res["random"] = targets(c, m, "random", seed=seed)
    except SqlanonError as exc:
        assert "did not reach" in str(exc)
        res["random"] = ref_alg1(c, m)  # placeholder that satisfies the checks below
    for meth, t in res.items():
        assert is_eligible(t, m), meth
        assert distance(c, res["optimal"]) <= distance(c, t), meth
    # Algorithm 1 and Proposition 3: exactly max(0, m c_max - n) additions, literal loop
    assert res["counterfeit"] == ref_alg1(c, m)
    assert sum(res["counterfeit"]) - n == max(0, m * top - n)
    # Algorithm 2 gives a maximal m-eligible subset: ILP with additions forbidden
    assert res["delete"] == ref_alg2(c, m)
    assert all(t <= v for t, v in zip(res["delete"], c))
    assert n - sum(res["delete"]) == ilp(c, m, allow_add=False)
    # Algorithm 3 literally (exact fractions), both tie rules
    assert res["hybrid"] == ref_alg3(c, m)
    assert targets(c, m, "hybrid", prefer="counterfeit") == ref_alg3(c, m, prefer="counterfeit")
    # random only adds, and is reproducible
    assert all(t >= v for t, v in zip(res["random"], c))
    if res["random"] != ref_alg1(c, m):
        assert res["random"] == targets(c, m, "random", seed=seed)


@settings(max_examples=100)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=8), st.integers(0, 5), st.data())
def test_fill_is_algorithm_1_order(base, slack, data):
    cap = max(base) + slack
    extra = data.draw(st.integers(0, sum(cap - v for v in base)))
    out = list(base)
    for _ in range(extra):
        i = min(range(len(out)), key=lambda j: (out[j], j))
        out[i] += 1
    assert _fill(base, cap, extra) == out


@settings(max_examples=50)
@given(st.lists(st.integers(1, 50), min_size=2, max_size=10))
def test_proposition_10_l_equals_m_all_equal(c):
    t = targets(c, len(c))
    assert len(set(t)) == 1


@settings(max_examples=60)
@given(count_vectors(max_l=8, max_c=20), st.sampled_from(["optimal", "counterfeit", "delete", "hybrid"]))
def test_priority_reorders_ties(cv, method):
    c, m = cv
    rev = targets(c, m, method, priority=list(range(len(c), 0, -1)))
    assert rev == targets(c[::-1], m, method)[::-1]
    assert targets(c, m, method, priority=[0] * len(c)) == targets(c, m, method)


def test_priority_table_ii_last_wins():
    # Algorithm 1 step 2 "could choose between several options": HIV instead of ACNE
    assert targets([5, 3, 1, 1], 3, "counterfeit", priority=[4, 3, 2, 1]) == [5, 3, 3, 4]
    with pytest.raises(SqlanonError, match="priority has 2 entries"):
        targets([5, 3, 1], 2, priority=[1, 2])


def test_already_eligible_unchanged():
    for c, m in (([3, 3, 3], 3), ([4, 3, 2, 2], 2), ([1, 1], 2)):
        for meth in METHODS:
            assert targets(c, m, meth) == c


def test_random_needs_more_counterfeits_on_average():
    c = [50, 10, 10, 5, 5]
    mean_random = np.mean([cost(c, 3, seed=s)["random"]["additions"] for s in range(5)])
    assert mean_random >= cost(c, 3)["counterfeit"]["additions"]


def test_speed_is_not_quadratic():
    # the 50 ms goal is measured in benchmarks/eligibility.py; this only guards scale
    rng = np.random.default_rng(0)
    c = [int(v) for v in rng.integers(1, 100_000, size=10_000)]
    t = targets(c, 100)
    assert is_eligible(t, 100)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "counts, m, method, match",
    [
        ([5, 3], 1, "optimal", "m must be an integer >= 2"),
        ([5, 3], 3, "optimal", "larger than the number of distinct SA values"),
        ([], 2, "counterfeit", "counts is empty"),
        ([5, 0, 2], 2, "optimal", "count #1 is 0"),
        ([5, "x"], 2, "optimal", "count #1"),
        ([5, 3], 2.5, "optimal", "m must be an integer"),
        ([5, 3], 2, "best", "unknown eligibility method 'best'"),
    ],
)
def test_bad_input(counts, m, method, match):
    with pytest.raises(SqlanonError, match=match):
        targets(counts, m, method)


def test_bad_options():
    with pytest.raises(SqlanonError, match="takes no option 'seed'"):
        targets([3, 2, 1], 2, "optimal", seed=1)
    with pytest.raises(SqlanonError, match="prefer must be"):
        targets([5, 2, 1], 2, "hybrid", prefer="both")
    with pytest.raises(SqlanonError, match="did not reach"):
        targets([1000, 1, 1], 3, "random", max_additions=10)


# --------------------------------------------------------------------------- SQL


def make_table(con, counts, name="t", sa_type="VARCHAR"):
    con.execute(f"CREATE OR REPLACE TABLE {name}(id BIGINT, q INTEGER, sa {sa_type})")
    rows, i = [], 0
    for k, c in enumerate(counts):
        v = f"v{k:03d}" if sa_type == "VARCHAR" else k
        for _ in range(c):
            rows.append([i, i % 3, v])
            i += 1
    con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", rows)


@settings(max_examples=60)
@given(count_vectors(max_l=8, max_c=15), st.sampled_from(["VARCHAR", "INTEGER"]))
def test_sql_macro_equals_python(con, cv, sa_type):
    c, m = cv
    make_table(con, c, sa_type=sa_type)  # SA values sort in input order
    for meth in ("optimal", "counterfeit", "delete"):
        rows = con.execute("FROM sqlanon_eligibility_targets('t', 'sa', ?, method := ?)", [m, meth]).fetchall()
        assert [r[1] for r in rows] == c
        assert [r[2] for r in rows] == targets(c, m, meth), meth
        assert all(r[3] == r[2] - r[1] for r in rows)
    got = {r[0]: r[1:] for r in con.execute("FROM sqlanon_eligibility_cost('t', 'sa', ?)", [m]).fetchall()}
    want = cost(c, m, methods=("optimal", "counterfeit", "delete"))
    assert got == {k: (v["additions"], v["deletions"], v["modifications"]) for k, v in want.items()}


def test_sql_table_ii(con):
    con.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES ('FLU'),('FLU'),('FLU'),('FLU'),('FLU'),"
        "('ACNE'),('ACNE'),('ACNE'),('ADHD'),('HIV')) v(disease)"
    )
    got = dict(con.execute("SELECT sa_value, target FROM sqlanon_eligibility_targets('t', 'disease', 3, method := 'counterfeit')").fetchall())
    assert got == {"FLU": 5, "ACNE": 4, "ADHD": 3, "HIV": 3}
    got = dict(con.execute("SELECT sa_value, target FROM sqlanon_eligibility_targets('t', 'disease', 3, method := 'delete')").fetchall())
    assert got == {"FLU": 2, "ACNE": 2, "ADHD": 1, "HIV": 1}


@pytest.mark.parametrize(
    "sql, match",
    [
        ("FROM sqlanon_eligibility_targets('t', 'sa', 1)", "m must be an integer >= 2"),
        ("FROM sqlanon_eligibility_targets('t', 'sa', 4)", "larger than the number of distinct values"),
        ("FROM sqlanon_eligibility_targets('t', 'sa', 2, method := 'hybrid')", "not available in SQL"),
        ("FROM sqlanon_eligibility_targets('e', 'sa', 2)", "is empty"),
        ("FROM sqlanon_eligibility_targets('n', 'sa', 2)", "has NULL values"),
        ("FROM sqlanon_eligibility_cost('t', 'sa', 9)", "larger than the number"),
    ],
)
def test_sql_bad_input(con, sql, match):
    make_table(con, [3, 2, 1])
    con.execute("CREATE TABLE e(id BIGINT, sa VARCHAR)")
    con.execute("CREATE TABLE n AS SELECT * FROM (VALUES (1, 'a'), (2, NULL), (3, 'b')) v(id, sa)")
    with pytest.raises(Exception, match=match):
        con.execute(sql).fetchall()


def test_macros_in_duckdb_cli(tmp_path, duckdb_shell):
    script = tmp_path / "s.sql"
    script.write_text(
        f".read {ROOT / 'macros' / 'sqlanon.sql'}\n"
        ".mode csv\n"
        "CREATE TABLE t AS SELECT * FROM (VALUES (1,10,'a'),(2,10,'a'),(3,10,'a'),(4,10,'a'),(5,10,'a'),"
        "(6,11,'b'),(7,11,'b'),(8,11,'b'),(9,12,'c'),(10,13,'d')) v(id, q, sa);\n"
        "SELECT sa_value, target FROM sqlanon_eligibility_targets('t', 'sa', 3);\n"
        "SELECT * FROM sqlanon_eligibility_cost('t', 'sa', 3);\n"
        "CREATE TEMP TABLE p AS FROM sqlanon_eligibility_targets('t', 'sa', 3);\n"
        "SELECT count(*) FROM sqlanon_eligibility_deletions('t', 'id', 'sa', 'p');\n"
        "SELECT count(*) FROM sqlanon_eligibility_counterfeits('t', 'id', 'sa', 'p', mode := 'copy');\n"
    )
    out = subprocess.run([duckdb_shell, "-c", f".read {script}"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln]
    assert "a,3" in lines and "b,3" in lines and "c,2" in lines and "d,1" in lines
    assert "optimal,1,2,3" in lines and "counterfeit,5,0,5" in lines and "delete,0,4,4" in lines
    assert lines.count("2") == 1 and lines.count("1") == 1  # 2 deletions, 1 counterfeit


# --------------------------------------------------------------------------- materialization


@settings(max_examples=40)
@given(count_vectors(max_l=6, max_c=12), st.sampled_from(METHODS), st.integers(0, 5), st.sampled_from(["null", "copy"]))
def test_materialized_table_is_eligible(con, cv, method, seed, mode):
    c, m = cv
    make_table(con, c)
    try:
        rows = plan(con, "t", "sa", m, method, into="p")
    except SqlanonError as exc:  # random on m close to l
        assert method == "random" and "did not reach" in str(exc)
        return
    assert [r[1] for r in rows] == c
    dels = con.execute("FROM sqlanon_eligibility_deletions('t', 'id', 'sa', 'p', seed := ?)", [seed]).fetchall()
    fakes = con.execute(
        "FROM sqlanon_eligibility_counterfeits('t', 'id', 'sa', 'p', mode := ?, seed := ?)", [mode, seed]
    ).fetchdf()
    assert len({d[0] for d in dels}) == len(dels)
    real = {r[0]: (r[1], r[2]) for r in con.execute("SELECT id, q, sa FROM t").fetchall()}
    assert all(real[i][1] == s for i, s in dels)
    assert fakes["id"].isna().all()
    if mode == "null":
        assert fakes["q"].isna().all()
    else:
        pairs = {(q, s) for q, s in real.values()}
        assert all((q, s) in pairs for q, s in zip(fakes["q"], fakes["sa"]))
    final = Counter(s for i, (_, s) in real.items() if i not in {d[0] for d in dels})
    final.update(fakes["sa"].tolist())
    want = {r[0]: r[2] for r in rows}
    assert {k: v for k, v in final.items() if v} == {k: v for k, v in want.items() if v}
    assert is_eligible(list(final.values()), m)
    # same seed, same rows
    again = con.execute("FROM sqlanon_eligibility_deletions('t', 'id', 'sa', 'p', seed := ?)", [seed]).fetchall()
    assert again == dels


def test_deletions_prefer_qi_twins(con):
    # value 'a': ids 0..5, q = 7 for ids 0-3 (four twins), unique q for 4, 5
    con.execute("CREATE TABLE t(id BIGINT, q INTEGER, sa VARCHAR)")
    con.executemany(
        "INSERT INTO t VALUES (?, ?, ?)",
        [[0, 7, "a"], [1, 7, "a"], [2, 7, "a"], [3, 7, "a"], [4, 1, "a"], [5, 2, "a"], [6, 0, "b"], [7, 0, "c"]],
    )
    plan(con, "t", "sa", 2, "delete", into="p")  # 'a' 6 -> 2: delete 4
    for seed in range(5):
        dels = con.execute("SELECT id FROM sqlanon_eligibility_deletions('t', 'id', 'sa', 'p', seed := ?, qi := ['q'])", [seed]).fetchall()
        assert sorted(d[0] for d in dels) == [0, 1, 2, 3]
    random_picks = {
        tuple(sorted(d[0] for d in con.execute("SELECT id FROM sqlanon_eligibility_deletions('t', 'id', 'sa', 'p', seed := ?)", [s]).fetchall()))
        for s in range(10)
    }
    assert len(random_picks) > 1  # the seed matters without qi


@pytest.mark.parametrize("args,bad", [("'id', 'sa', 'p', qi := ['q', 'zz']", "zz"), ("'id', 'sa', 'p', qi := ['zz']", "zz"),
                                      ("'idx', 'sa', 'p'", "idx"), ("'id', 'sax', 'p', qi := ['q']", "sax")])
def test_deletions_reject_unknown_columns(con, args, bad):
    """An unknown name (id, SA or in the optional QI hint) is an error naming it,
    not a silently smaller twin key."""
    con.execute("CREATE TABLE t AS SELECT range AS id, range % 3 AS q, ['a', 'b', 'c'][range % 3 + 1] AS sa FROM range(9)")
    con.execute("CREATE TABLE p AS SELECT 'a' AS sa_value, -1 AS delta")
    with pytest.raises(Exception, match=f'column "{bad}" is not in table "t"'):
        con.execute(f"FROM sqlanon_eligibility_deletions('t', {args})").fetchall()
    # an empty or NULL hint is valid (seeded random order)
    for hint in ("[]", "NULL"):
        assert len(con.execute(f"FROM sqlanon_eligibility_deletions('t', 'id', 'sa', 'p', qi := {hint})").fetchall()) == 1


def test_counterfeits_bad_mode(con):
    make_table(con, [5, 1, 1])
    plan(con, "t", "sa", 3, "counterfeit", into="p")
    with pytest.raises(Exception, match="mode must be 'null' or 'copy'"):
        con.execute("FROM sqlanon_eligibility_counterfeits('t', 'id', 'sa', 'p', mode := 'zero')").fetchall()


def test_plan_errors_leave_database_unchanged(con):
    con.execute("CREATE TABLE n AS SELECT * FROM (VALUES (1, 'a'), (2, NULL), (3, 'b')) v(id, sa)")
    con.execute("CREATE TABLE e(id BIGINT, sa VARCHAR)")
    before = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
    with pytest.raises(SqlanonError, match="NULL values"):
        plan(con, "n", "sa", 2, into="p")
    with pytest.raises(SqlanonError, match="is empty"):
        plan(con, "e", "sa", 2, "hybrid", into="p")
    with pytest.raises(SqlanonError, match="'nope' is not a column"):
        plan(con, "n", "nope", 2, into="p")
    with pytest.raises(SqlanonError, match="at most 2"):
        con.execute("DELETE FROM n WHERE sa IS NULL")
        plan(con, "n", "sa", 3, "random", into="p")
    assert con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall() == before


def test_plan_on_adult_all_methods(adult_con):
    con = adult_con
    con.execute("CREATE TABLE a AS SELECT * FROM adult WHERE workclass IS NOT NULL")
    counts = [r[0] for r in con.execute("SELECT count(*) FROM a GROUP BY workclass ORDER BY workclass").fetchall()]
    for meth in METHODS:
        if meth == "random":
            continue
        rows = plan(con, "a", "workclass", 4, meth)
        assert [r[2] for r in rows] == targets(counts, 4, meth)


# --------------------------------------------------------------------------- the big ILP suite


@pytest.mark.slow
@settings(max_examples=1750)
@given(count_vectors(max_l=20, max_c=200))
def test_optimal_equals_ilp_many(cv):
    check_optimal(*cv)


@pytest.mark.slow
@settings(max_examples=150)
@given(count_vectors(max_l=200, max_c=1000))
def test_optimal_equals_ilp_up_to_200_values(cv):
    c, m = cv
    assume(len(c) >= 20)
    check_optimal(c, m)
    for meth in ("counterfeit", "delete", "hybrid"):
        assert distance(c, targets(c, m)) <= distance(c, targets(c, m, meth))


@pytest.mark.slow
@settings(max_examples=80)
@given(st.integers(2, 100), st.integers(1, 20_000), st.data())
def test_optimal_equals_ilp_one_dominant(l, big, data):
    c = data.draw(st.lists(st.integers(1, 50), min_size=l - 1, max_size=l - 1)) + [big]
    m = data.draw(st.integers(2, l))
    check_optimal(c, m)

"""sqlanon.Publisher: m-invariance over random dynamic histories, checked by an
independent checker that reads only the four contract macros; determinism;
history continued from a reopened database file; bad input writes nothing."""

from __future__ import annotations

import logging
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from sqlanon import Publisher, SqlanonError
from sqlanon.project import Project

SA_VALUES = ["a", "b", "c", "d", "e", "f"]


# ----------------------------------------------------------- independent checker
def check_history(con, project, m, releases):
    """Read only sqlanon_published_qit/_st and sqlanon_membership; assert every
    release m-unique, signatures constant over lifespans (an updated person may
    move to a disjoint signature), and every person's signatures pairwise equal
    or disjoint, so the intersection over all releases is empty or >= m."""
    sigs = {}  # release -> {id: (signature, sa)}
    for r in range(1, releases + 1):
        st_rows = con.execute("FROM sqlanon_published_st(?, ?)", [project, r]).fetchall()
        groups = {}
        for g, v, n in st_rows:
            assert n == 1, f"release {r} group {g} repeats value {v}"
            groups.setdefault(g, set()).add(v)
        for g, vals in groups.items():
            assert len(vals) >= m, f"release {r} group {g} has {len(vals)} < {m} values"
        qit = con.execute("SELECT group_id, count(*) FROM sqlanon_published_qit(?, ?) GROUP BY ALL", [project, r]).fetchall()
        assert dict(qit) == {g: len(v) for g, v in groups.items()}
        mem = con.execute("SELECT * FROM sqlanon_membership(?, ?)", [project, r]).fetchall()
        assert len(mem) == len(st_rows)
        sigs[r] = {}
        for pid, g, fake, v in mem:
            assert v in groups[g]
            assert fake or pid is not None  # a counterfeit with an id is a ghost (docs/threat_model.md)
            if not fake:
                assert pid not in sigs[r]
                sigs[r][pid] = (frozenset(groups[g]), v)
    persons = {p for r in sigs for p in sigs[r]}
    for p in persons:
        seen = [(r, *sigs[r][p]) for r in sorted(sigs) if p in sigs[r]]
        for (r1, s1, v1), (r2, s2, v2) in zip(seen, seen[1:]):
            if r2 == r1 + 1 and s1 != s2:
                assert v1 != v2 and not (s1 & s2), f"person {p}: signature changed {r1}->{r2}"
        for i in range(len(seen)):
            for j in range(i + 1, len(seen)):
                common = len(seen[i][1] & seen[j][1])
                assert common == 0 or common >= m, f"person {p}: collusion {seen[i][0]}/{seen[j][0]}"
        inter = frozenset.intersection(*[s for _, s, _ in seen])
        assert len(inter) == 0 or len(inter) >= m


def random_history(con, rnd, n_releases, n0=30, pub_kwargs=None, project="p", m=3):
    """Drive a random dynamic source (inserts, deletes, updates, re-inserts)."""
    con.execute("CREATE OR REPLACE TABLE src (id BIGINT, age INTEGER, zip VARCHAR, disease VARCHAR)")
    state, gone, next_id = {}, {}, 0
    for _ in range(n0):
        state[next_id] = (rnd.randint(20, 70), rnd.choice("xyz"), rnd.choice(SA_VALUES))
        next_id += 1
    pub = None
    results = []
    for r in range(1, n_releases + 1):
        if r > 1:
            for pid in rnd.sample(sorted(state), k=min(len(state) - 10, rnd.randint(0, 6))):
                gone[pid] = state.pop(pid)
            for pid in rnd.sample(sorted(gone), k=min(len(gone), rnd.randint(0, 4))):
                age, z, v = gone.pop(pid)
                state[pid] = (age, z, rnd.choice(SA_VALUES) if rnd.random() < 0.3 else v)
            for pid in rnd.sample(sorted(state), k=min(len(state), rnd.randint(0, 4))):
                age, z, _ = state[pid]
                state[pid] = (age, z, rnd.choice(SA_VALUES))
            for _ in range(rnd.randint(0, 8)):
                state[next_id] = (rnd.randint(20, 70), rnd.choice("xyz"), rnd.choice(SA_VALUES))
                next_id += 1
        con.execute("DELETE FROM src")
        con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", [(k, *v) for k, v in sorted(state.items())])
        if pub is None:
            pub = Publisher(con, project, source="src", id="id", qi=["age", "zip"], sa="disease", m=m,
                            **(pub_kwargs or {"seed": 5}))
        results.append(pub.release())
    return results


@settings(max_examples=12)
@given(seed=st.integers(0, 10**6), m=st.integers(2, 4), output=st.sampled_from(["anatomy", "generalized"]))
def test_random_histories_are_m_invariant(seed, m, output):
    con = sqlanon.connect()
    try:
        res = random_history(con, random.Random(seed), 10, m=m, pub_kwargs={"seed": seed, "output": output})
        check_history(con, "p", m, 10)
        assert [r.release for r in res] == list(range(1, 11))
        n_src = [con.execute("SELECT count(*) FROM sqlanon_membership('p', ?) WHERE NOT is_counterfeit",
                             [r.release]).fetchall()[0][0] for r in res]
        assert n_src == [r.published - r.counterfeits for r in res]
        if output == "generalized":
            n = con.execute("SELECT count(*) FROM sqlanon_published('p', 10)").fetchall()[0][0]
            assert n == res[-1].published
    finally:
        con.close()


def test_history_has_every_class_and_passes_the_audit():
    con = sqlanon.connect()
    res = random_history(con, random.Random(11), 12)
    assert sum(r.updated for r in res) and sum(r.reinserted for r in res) and sum(r.deleted for r in res)
    check_history(con, "p", 3, 12)
    report = sqlanon.audit(con, "p", 3)
    assert report.verdict == "safe", report.summary()


def _dump(con, project="p"):
    out = {}
    for t in ("qit", "st", "mem", "groups"):
        out[t] = con.execute(f"SELECT * FROM {Project(project).ref(t)} ORDER BY ALL").fetchall()
    return out


def test_same_input_and_seed_give_identical_releases():
    a, b = sqlanon.connect(), sqlanon.connect()
    random_history(a, random.Random(3), 6)
    random_history(b, random.Random(3), 6)
    assert _dump(a) == _dump(b)
    c = sqlanon.connect()
    random_history(c, random.Random(3), 6, pub_kwargs={"seed": 99})
    check_history(c, "p", 3, 6)


def test_reopened_file_continues_history(db_path):
    con = sqlanon.connect(db_path)
    rnd = random.Random(4)
    random_history(con, rnd, 3)
    con.close()
    con = sqlanon.connect(db_path)
    con.execute("DELETE FROM src WHERE id % 5 = 0")
    pub = Publisher(con, "p", source="src", id="id", qi=["age", "zip"], sa="disease", m=3, seed=5)
    r = pub.release()
    assert r.release == 4 and r.deleted > 0
    check_history(con, "p", 3, 4)
    assert list(sqlanon.publisher.status(con, "p")["release"]) == [1, 2, 3, 4]
    con.close()


# ------------------------------------------------------------------ bad input
@pytest.fixture
def released(con):
    con.execute("CREATE TABLE src AS SELECT range AS id, (range * 7) % 50 AS age, ['a','b','c','d'][range % 4 + 1] "
                "AS disease FROM range(40)")
    Publisher(con, "p", source="src", id="id", qi=["age"], sa="disease", m=3).release()
    return con


def _unchanged(con, fn, match):
    before = _dump(con)
    with pytest.raises(SqlanonError, match=match):
        fn()
    assert _dump(con) == before


def _pub(con, **kw):
    args = dict(source="src", id="id", qi=["age"], sa="disease", m=3)
    args.update(kw)
    return Publisher(con, "p", **args)


def test_duplicate_ids(released):
    released.execute("INSERT INTO src VALUES (3, 1, 'a')")
    _unchanged(released, lambda: _pub(released).release(), r"duplicate ids in column 'id' \(1 rows")


@pytest.mark.parametrize("id_sql", ["range::VARCHAR", "range * 100000000", "range - 20"])
def test_duplicate_ids_every_id_type(con, id_sql):
    """The duplicate check has a bitmap path (integer ids in a dense range) and a
    count(DISTINCT) path (text ids, sparse integers): both name the duplicate.
    Ids at or below zero are in the bitmap's range too. The message counts them
    and never shows an id (issue 19)."""
    con.execute(f"CREATE TABLE src AS SELECT {id_sql} AS id, (range * 7) % 50 AS age, "
                "['a','b','c','d'][range % 4 + 1] AS disease FROM range(40)")
    con.execute("INSERT INTO src SELECT * FROM src WHERE age = 14")
    dup = con.execute("SELECT id FROM src WHERE age = 14 LIMIT 1").fetchall()[0][0]
    with pytest.raises(SqlanonError, match=r"duplicate ids in column 'id' \(1 rows") as err:
        _pub(con).release()
    assert str(dup) not in str(err.value)
    con.execute("DELETE FROM src WHERE rowid >= 40")
    assert _pub(con).release().published >= 40


def test_null_sa(released):
    released.execute("UPDATE src SET disease = NULL WHERE id = 7")
    _unchanged(released, lambda: _pub(released).release(), "NULL in SA column 'disease'")


def test_null_id(released):
    released.execute("UPDATE src SET id = NULL WHERE id = 7")
    _unchanged(released, lambda: _pub(released).release(), "NULL in id column")


def test_m_above_distinct_values(con):
    con.execute("CREATE TABLE src AS SELECT range AS id, range AS age, ['a','b'][range % 2 + 1] AS disease FROM range(9)")
    with pytest.raises(SqlanonError, match="m = 3 is above the 2 distinct values"):
        _pub(con).release()
    assert not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'sqlanon_p%'").fetchall()[0][0]


def test_a_value_above_one_in_m_is_reported(con, caplog):
    """m-invariance with one SA value above 1/m of the source: every row of it
    needs a group of its own, so at least m * top - n rows are counterfeits;
    the release says so (logger "sqlanon", WARNING), naming counts and the
    column, never the value. Below 1/m nothing is logged."""
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, "
                "CASE WHEN range < 12 THEN 'flu' ELSE ['a','b','c','d'][range % 4 + 1] END AS disease FROM range(20)")
    with caplog.at_level(logging.WARNING, logger="sqlanon"):
        _pub(con).release()
    (msg,) = [r.getMessage() for r in caplog.records if r.name == "sqlanon"]
    # 12 of 20 rows, m = 3: at least 12 groups of 3, so 16 of 36 rows counterfeit
    assert "holds 60% of the source's rows, above 1/m = 33%" in msg and "at least 44% of the published" in msg
    assert "'disease'" in msg and "flu" not in msg and "bucketing the SA values" in msg
    assert con.execute("SELECT counterfeits FROM sqlanon_private.p__ledger").fetchone()[0] >= 16
    caplog.clear()
    con.execute("UPDATE src SET disease = ['a','b','c','d','e'][id % 5 + 1]")
    with caplog.at_level(logging.WARNING, logger="sqlanon"):
        _pub(con).release()
    assert not [r for r in caplog.records if r.name == "sqlanon"]


@pytest.mark.parametrize("change,match", [
    ("ALTER TABLE src DROP COLUMN extra", "lost column 'extra'"),
    ("ALTER TABLE src RENAME COLUMN extra TO extra2", "lost column 'extra'"),
    ("ALTER TABLE src ALTER age TYPE DOUBLE", "changed type from BIGINT to DOUBLE"),
])
def test_source_schema_changed(con, change, match):
    con.execute("CREATE TABLE src AS SELECT range AS id, range AS age, range AS extra, "
                "['a','b','c'][range % 3 + 1] AS disease FROM range(30)")
    _pub(con).release()
    con.execute(change)
    _unchanged(con, lambda: _pub(con).release(), match)


@pytest.mark.parametrize("kw,match", [({"m": 4}, "m = 3, now 4"), ({"qi": ["age", "id2"]}, None),
                                      ({"seed": 2}, "seed = 0, now 2"), ({"output": "generalized"}, "output")])
def test_parameters_changed(released, kw, match):
    released.execute("ALTER TABLE src ADD COLUMN id2 INTEGER DEFAULT 1")
    _unchanged(released, lambda: _pub(released, **kw).release(), match or "qi")


@pytest.mark.parametrize("kw,match", [({"qi": []}, "empty"), ({"qi": ["disease"]}, "twice"), ({"m": 1}, "m must"),
                                      ({"model": "x"}, "unknown model"), ({"output": "x"}, "unknown output"),
                                      ({"qi": ["nope"]}, "not a column"), ({"source": "nosuch"}, "does not exist")])
def test_bad_arguments(released, kw, match):
    _unchanged(released, lambda: _pub(released, **kw).release(), match)


def test_bad_project_name(con):
    with pytest.raises(SqlanonError, match="project name"):
        Publisher(con, "1; DROP", source="src", id="id", qi=["age"], sa="disease", m=3)


def test_failure_mid_release_rolls_back(released, tmp_path):
    """A failing step (here: a user template with an error) leaves nothing behind."""
    folder = tmp_path / "tpl" / "m_invariance"
    folder.mkdir(parents=True)
    (folder / "08_assign.sql.j2").write_text("SELECT error('boom');\n")
    released.execute("INSERT INTO src VALUES (100, 3, 'a')")
    _unchanged(released, lambda: _pub(released, templates_dir=tmp_path / "tpl").release(), "failed in template m_invariance/08_assign.sql.j2: .*boom")


def test_generalized_extent_covers_the_exact_qi():
    con = sqlanon.connect()
    random_history(con, random.Random(8), 4, pub_kwargs={"seed": 1, "output": "generalized"})
    for r in range(1, 5):
        qit = con.execute("FROM sqlanon_published_qit('p', ?)", [r]).fetchall()
        pub = con.execute("FROM sqlanon_published('p', ?)", [r]).fetchall()
        assert len(qit) == len(pub)
        ext = {}
        for g, age, z, _ in pub:
            ext.setdefault(g, set()).add((age, z))
        for g, age, z in qit:
            (a, zz), = ext[g]
            lo, _, hi = a.partition("-")
            assert int(lo) <= age <= int(hi or lo)
            assert z == zz or (zz.startswith("{") and z in zz.strip("{}").split(","))


def test_generalized_cells_hold_a_value_that_left_the_source():
    """A carried group's counterfeit may copy a tuple its group published in
    the last release (block carry_tuples), whose categorical value nobody in
    the source has any more: the group's generalized cell still lists it
    (step 6b's value lists hold the last release's published values too; they
    held the snapshot's only, and the cell left the value out: 151 of 30,077
    rows on Adult after deleting every person of 12 rare native countries)."""
    con = sqlanon.connect()
    rnd = random.Random(3)
    rows = [(i, rnd.randint(20, 70), "r" if i % 10 == 0 else rnd.choice("xyz"), rnd.choice(SA_VALUES)) for i in range(120)]
    con.execute("CREATE TABLE src (id BIGINT, age INTEGER, zip VARCHAR, disease VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", rows)
    pub = Publisher(con, "p", source="src", id="id", qi=["age", "zip"], sa="disease", m=3,
                    output="generalized", seed=2)
    pub.release()
    con.execute("DELETE FROM src WHERE zip = 'r'")  # every person of value 'r' leaves
    pub.release()
    qit = con.execute("FROM sqlanon_published_qit('p', 2)").fetchall()
    cells = {g: z for g, _, z, _ in con.execute("FROM sqlanon_published('p', 2)").fetchall()}
    assert any(z == "r" for _, _, z in qit)  # a counterfeit kept a departed person's tuple
    for g, _, z in qit:
        assert z == cells[g] or (cells[g].startswith("{") and z in cells[g].strip("{}").split(",")), (g, z, cells[g])


def test_project_without_entries_table_continues_identically(monkeypatch):
    """Projects released before the private entries table existed rebuild it from
    their membership: the same history as with the table all along."""
    a = sqlanon.connect()
    random_history(a, random.Random(21), 6)
    b = sqlanon.connect()
    release = Publisher.release

    def release_then_drop(self):
        r = release(self)
        self.con.execute("DROP TABLE sqlanon_private.p__entries")
        return r

    monkeypatch.setattr(Publisher, "release", release_then_drop)
    random_history(b, random.Random(21), 6)
    assert _dump(a) == _dump(b)


def test_profile_logs_statement_times(caplog):
    """Logger sqlanon.profile at DEBUG gets one message per release with the time
    of each statement; at its default level nothing is logged."""
    con = sqlanon.connect()
    with caplog.at_level(logging.INFO, logger="sqlanon"):
        random_history(con, random.Random(2), 1)
    assert not [r for r in caplog.records if r.name == "sqlanon.profile"]
    con = sqlanon.connect()
    with caplog.at_level(logging.DEBUG, logger="sqlanon.profile"):
        random_history(con, random.Random(2), 2)
    msgs = [r.getMessage() for r in caplog.records if r.name == "sqlanon.profile"]
    assert len(msgs) == 2
    assert "profile of project 'p' release 2" in msgs[1] and "09_publish#" in msgs[1] and "validate" in msgs[1]


def test_release_restores_threads_after_a_small_release(monkeypatch):
    """A source under SINGLE_THREAD_ROWS is released on one DuckDB thread; the
    database's setting is restored afterwards, also when the release fails."""
    con = sqlanon.connect()
    con.execute("SET threads = 2")
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS a, (range % 5)::VARCHAR AS s FROM range(500)")
    seen = []

    def gate(self, ctx, params, prof):
        seen.append(self.engine.setting("threads"))
        if len(seen) == 2:
            raise SqlanonError("stop")
        return original(self, ctx, params, prof)

    original = Publisher._gate
    monkeypatch.setattr(Publisher, "_gate", gate)
    Publisher(con, "p", source="src", id="id", qi=["a"], sa="s", m=3).release()
    assert seen == [1] and con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]
    with pytest.raises(SqlanonError, match="stop"):
        Publisher(con, "p", source="src", id="id", qi=["a"], sa="s", m=3).release()
    assert seen == [1, 1] and con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]


def test_release_restores_preserve_insertion_order():
    con = sqlanon.connect()
    con.execute("SET preserve_insertion_order = false")
    random_history(con, random.Random(4), 2, n0=30, m=3)
    assert con.execute("SELECT current_setting('preserve_insertion_order')").fetchall() == [(False,)]


def _qit_groups(con, project, r, qi):
    """The published QI table's rows (group_id, QI...) and its QI tuples by group."""
    rows = con.execute(f"SELECT group_id, {', '.join(qi)} FROM sqlanon_published_qit(?, ?)", [project, r]).fetchall()
    groups = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row[1:])
    return rows, groups


def ref_ncp(con, project, r, qi, numeric):
    """NCP from the published QI table alone (its rows are the release's rows,
    counterfeits with their group's QI): numeric QI (max - min) / domain range,
    other QI #values / #domain values (0 for one value), % of rows x QI."""
    rows, groups = _qit_groups(con, project, r, qi)
    cols = list(zip(*[row[1:] for row in rows]))
    total = 0.0
    for members in groups.values():
        for j, c in enumerate(qi):
            vals = [m[j] for m in members if m[j] is not None]
            dom = [v for v in cols[j] if v is not None]
            if numeric[j]:
                span = max(dom) - min(dom) if dom else 0
                term = (max(vals) - min(vals)) / span if vals and span else 0.0
            else:
                nv, nd = len(set(vals)), len(set(dom))
                term = 0.0 if nv <= 1 or nd == 0 else nv / nd
            total += len(members) * term
    return 100.0 * total / (len(rows) * len(qi))


def ref_generalized(con, project, r, qi, numeric):
    """The generalized form from the published QI table alone: per group a numeric
    QI as 'min-max' (or the value), another QI as its value or '{a,b,...}' (the
    distinct non-NULL values sorted as text); NULLs ignored; rows of the QI
    table's order (the same row order as the published table)."""
    rows, groups = _qit_groups(con, project, r, qi)
    gen = {}
    for g, members in groups.items():
        out = []
        for j in range(len(qi)):
            vals = [m[j] for m in members if m[j] is not None]
            if numeric[j]:
                lo, hi = (min(vals), max(vals)) if vals else (None, None)
                out.append(None if lo is None else str(lo) if lo == hi else f"{lo}-{hi}")
            else:
                vs = sorted({str(v) for v in vals})
                out.append(vs[0] if len(vs) == 1 else None if not vs else "{" + ",".join(vs) + "}")
        gen[g] = tuple(out)
    return [(g, *gen[g]) for g, *_ in rows]


@pytest.mark.parametrize("output", ["anatomy", "generalized"])
@pytest.mark.parametrize("n_city", [5, 200])
def test_ncp_matches_reference(n_city, output):
    """The ledger's NCP equals a reference computed from the published QI table, and
    so does the generalized form; n_city = 5 takes step 9's bit mask over a QI's
    values, 200 (> 127 values) its count(DISTINCT) or per-group value list."""
    con = sqlanon.connect()
    rnd = random.Random(n_city)
    rows = [(i, rnd.randint(18, 80), rnd.choice(["x", "y", None]), f"c{rnd.randrange(n_city)}", rnd.choice(SA_VALUES))
            for i in range(400)]
    con.execute("CREATE TABLE src (id BIGINT, age INTEGER, zip VARCHAR, city VARCHAR, disease VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", rows[:300])
    pub = Publisher(con, "p", source="src", id="id", qi=["age", "zip", "city"], sa="disease", m=3, seed=1,
                    output=output)
    results = [pub.release()]
    con.execute("DELETE FROM src WHERE id % 5 = 0")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", rows[300:])
    results.append(pub.release())
    for res in results:
        assert res.ncp == pytest.approx(ref_ncp(con, "p", res.release, ["age", "zip", "city"], [True, False, False]))
        if output == "generalized":
            got = con.execute("SELECT group_id, age, zip, city FROM sqlanon_published('p', ?)", [res.release]).fetchall()
            assert got == ref_generalized(con, "p", res.release, ["age", "zip", "city"], [True, False, False])



@pytest.mark.parametrize("model", ["anatomy", "dynamic-anatomy"])
@pytest.mark.parametrize("n_city", [5, 200])
def test_anatomy_ncp_matches_reference(n_city, model):
    """The anatomy models' NCP (sql/anatomy/90_stats: a categorical QI's values per
    group as a bit mask, those of number 127 and above counted apart) equals the
    reference from the published QI table; n_city = 200 puts values past the mask."""
    con = sqlanon.connect()
    rnd = random.Random(n_city + 7)
    rows = [(i, rnd.randint(18, 80), rnd.choice(["x", "y", None]), f"c{rnd.randrange(n_city)}", rnd.choice(SA_VALUES))
            for i in range(600)]
    con.execute("CREATE TABLE src (id BIGINT, age INTEGER, zip VARCHAR, city VARCHAR, disease VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", rows[:450])
    pub = Publisher(con, "p", source="src", id="id", qi=["age", "zip", "city"], sa="disease", model=model, l=3,
                    seed=2)
    results = [pub.release()]
    con.execute("DELETE FROM src WHERE id % 5 = 0")
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", rows[450:])
    results.append(pub.release())
    for res in results:
        assert res.ncp == pytest.approx(ref_ncp(con, "p", res.release, ["age", "zip", "city"], [True, False, False]))

# ------------------------------------------------------ step 4: class matching
def test_refill_takes_vacancies_by_equal_and_by_disjoint_signature():
    """Many vacancies share a signature and many updated persons share a history
    (the case the class matching of step 4 is for): updated and re-inserted
    persons take vacancies of carried groups both ways the seed 003 rule allows —
    a group with one of their earlier signatures, and one with a signature
    disjoint from all of them — and the history stays m-invariant."""
    con = sqlanon.connect()
    values = [f"v{i}" for i in range(9)]
    con.execute("CREATE TABLE src AS SELECT range AS id, (range * 7919 % 60)::INTEGER AS age, 'x' AS zip, "
                "['v0','v1','v2','v3','v4','v5','v6','v7','v8'][range % 9 + 1] AS disease FROM range(900)")
    pub = Publisher(con, "p", source="src", id="id", qi=["age", "zip"], sa="disease", m=3, seed=4)
    pub.release()
    con.execute("CREATE TABLE gone AS SELECT * FROM src WHERE hash(id, 'd') % 10 = 0")
    con.execute("DELETE FROM src WHERE id IN (SELECT id FROM gone)")
    con.execute("UPDATE src SET disease = $v[(hash(id, 'v') % 9 + 1)::INTEGER] WHERE hash(id, 'u') % 6 = 0",
                {"v": values})
    pub.release()
    con.execute("INSERT INTO src SELECT * FROM gone WHERE hash(id, 'r') % 2 = 0")
    con.execute("UPDATE src SET disease = $v[(hash(id, 'w') % 9 + 1)::INTEGER] WHERE hash(id, 'x') % 7 = 0",
                {"v": values})
    pub.release()
    check_history(con, "p", 3, 3)
    sig = {}  # (release, group) -> signature
    for r in (1, 2, 3):
        for g, v, _ in con.execute("FROM sqlanon_published_st('p', ?)", [r]).fetchall():
            sig.setdefault((r, g), set()).add(v)
    mem = {r: {pid: g for pid, g, fake, _ in con.execute("FROM sqlanon_membership('p', ?)", [r]).fetchall() if not fake}
           for r in (1, 2, 3)}
    same = disjoint = 0
    for r in (2, 3):
        for pid, g in mem[r].items():
            if (r - 1, g) not in sig or mem[r - 1].get(pid) == g:
                continue  # a new group, or a survivor
            earlier = [sig[(q, mem[q][pid])] for q in range(1, r) if pid in mem[q]]
            if not earlier:
                continue  # a new person in a carried group
            if any(s == sig[(r, g)] for s in earlier):
                same += 1
            else:
                assert all(not (s & sig[(r, g)]) for s in earlier)
                disjoint += 1
    assert same > 0 and disjoint > 0, (same, disjoint)

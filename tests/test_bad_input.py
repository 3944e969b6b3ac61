"""Issue 19: bad input, misuse and odd-but-valid input. Every case gets our own
error naming what to fix (never a raw DuckDB or Python exception, never an id
or a data value in the message), and every table of the database is
byte-identical afterwards (md5 of each table's rows)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import duckdb
import pytest
from click.testing import CliRunner

import sqlanon
from sqlanon import Publisher, SqlanonError
from sqlanon.cli import main
from sqlanon.ident import quote
from sqlanon.publisher import QI_RESERVED, SA_RESERVED, _masked, status
from table_state import tables_md5


def unchanged(con, fn, match):
    """fn() raises a SqlanonError matching ``match`` and leaves every table as it was."""
    before = tables_md5(con)
    with pytest.raises(SqlanonError, match=match) as err:
        fn()
    assert tables_md5(con) == before
    return str(err.value)


def _src(con, n=300, name="src", q="q", sa="d", id="id", q_sql=None):
    q_sql = q_sql or "range % 50"
    con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT range AS {quote(id)}, {q_sql} AS {quote(q)}, "
                f"'v' || (range % 5) AS {quote(sa)}, range % 3 AS extra FROM range({n})")


def _pub(con, project="ward", **kw):
    args = dict(source="src", id="id", qi=["q"], sa="d", m=3)
    args.update(kw)
    return Publisher(con, project, **args)


@pytest.fixture
def released(con):
    _src(con)
    _pub(con).release()
    return con


# ------------------------------------------------------- messages echo no values
def test_duplicate_id_message_has_no_id(released):
    released.execute("INSERT INTO src SELECT * FROM src WHERE id IN (123457 % 300, 7)")
    msg = unchanged(released, lambda: _pub(released).release(), r"duplicate ids in column 'id' \(2 rows")
    assert "7" not in msg and "157" not in msg


def test_null_sa_message_has_no_id(released):
    released.execute("UPDATE src SET d = NULL WHERE id IN (7, 211)")
    msg = unchanged(released, lambda: _pub(released).release(), r"2 rows with a NULL in SA column 'd'")
    assert "211" not in msg and "7" not in msg


def test_too_many_sa_values_for_signature_masks(con):
    """m-invariance signatures are masks of at most MAX_SA_VALUES values: a
    source with more is refused by the validation, and a later source whose
    values, with those of the earlier releases' signatures, are more, by step
    2 (which counts them); nothing is written either way."""
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS q, 'v' || (range % 130) AS d FROM range(650)")
    unchanged(con, lambda: Publisher(con, "big", source="src", id="id", qi=["q"], sa="d", m=3).release(),
              r"SA column 'd' has 130 distinct values; the m-invariance pipeline supports at most 128")
    con.execute("CREATE OR REPLACE TABLE src AS SELECT range AS id, range % 7 AS q, 'v' || (range % 100) AS d "
                "FROM range(500)")
    Publisher(con, "big", source="src", id="id", qi=["q"], sa="d", m=3).release()
    con.execute("CREATE OR REPLACE TABLE src AS SELECT range AS id, range % 7 AS q, 'w' || (range % 40) AS d "
                "FROM range(500)")
    unchanged(con, lambda: Publisher(con, "big", source="src", id="id", qi=["q"], sa="d", m=3).release(),
              r"02_classify.*SA column d has 140 distinct values in the source and the earlier releases' "
              r"signatures; the m-invariance pipeline supports at most 128")


def test_template_error_message_masks_values(released, tmp_path):
    """A database error inside a template (here a user's override that casts the
    SA) is reported without the values DuckDB quotes; the original is the cause."""
    (tmp_path / "m_invariance").mkdir()
    (tmp_path / "m_invariance" / "90_stats.sql.j2").write_text("SELECT CAST({{ sa }} AS INTEGER) FROM {{ source }};\n")
    pub = _pub(released, templates_dir=tmp_path)
    msg = unchanged(released, pub.release, "failed in template m_invariance/90_stats.sql.j2")
    assert "'v" not in msg and "v0" not in msg and "v1" not in msg
    assert _masked(Exception("Overflow in subtraction of INT8 (99 - -100)!")) == "Overflow in subtraction of INT8 (? - ?)!"


# --------------------------------------------------------- valid input that works
@pytest.mark.parametrize("typ,lo,hi", [("TINYINT", -100, 99), ("TINYINT", -128, 127),
                                       ("BIGINT", -(2**63), 2**63 - 1), ("HUGEINT", -(2**127) + 1, 2**127 - 1),
                                       ("UBIGINT", 0, 2**64 - 1)])
@pytest.mark.parametrize("model", ["m-invariance", "anatomy", "generalized"])
def test_integer_qi_at_its_type_range(con, typ, lo, hi, model):
    con.execute(f"CREATE TABLE src AS SELECT range AS id, (CASE WHEN range % 2 = 0 THEN {lo}::HUGEINT + range "
                f"ELSE {hi}::HUGEINT - range END)::{typ} AS q, 'v' || (range % 5) AS d FROM range(100)")
    kw = {"anatomy": {"model": "anatomy", "l": 3}, "generalized": {"output": "generalized"}}.get(model, {})
    pub = _pub(con, **kw)
    r1 = pub.release()
    con.execute("DELETE FROM src WHERE id % 7 = 0")
    r2 = pub.release()
    assert r1.published >= 100 and r2.release == 2 and 0 <= r2.ncp <= 100


@pytest.mark.parametrize("model", ["m-invariance", "anatomy", "generalized"])
def test_nan_and_infinite_qi_are_refused_with_the_fix(con, model):
    # a DOUBLE QI with NaN and infinities: max - min is NaN, so NCP and the
    # generalized ranges were NaN; now a clear error, and the hint it gives works
    _src(con, q_sql="CASE WHEN range % 7 = 0 THEN 'nan'::DOUBLE WHEN range % 11 = 0 THEN '-inf'::DOUBLE "
                    "ELSE (range % 50)::DOUBLE END")
    kw = {"anatomy": {"model": "anatomy", "l": 3}, "generalized": {"output": "generalized"}}.get(model, {})
    msg = unchanged(con, lambda: _pub(con, **kw).release(), r"has 67 rows with NaN or an infinity in QI column 'q'")
    assert "-inf" not in msg and "id " not in msg  # a count and a column, not values or ids
    con.execute('UPDATE src SET q = NULL WHERE NOT isfinite(q)')  # the fix the message names
    r = _pub(con, **kw).release()
    assert r.published >= 300 - 67 and 0 <= r.ncp <= 100


def test_schema_qualified_source(con):
    _src(con)  # main.src: 300 rows, not the one to read
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.src AS SELECT range AS id, range % 50 AS q, 'w' || (range % 4) AS d FROM range(80)")
    r = _pub(con, source="s.src").release()
    assert r.published - r.counterfeits == 80
    con.execute("DELETE FROM s.src WHERE id < 10")
    r = _pub(con, source="s.src").release()
    assert (r.release, r.deleted) == (2, 10)


@pytest.mark.parametrize("role", ["qi", "sa"])
@pytest.mark.parametrize("name", sorted(set(QI_RESERVED) | set(SA_RESERVED) | {"Release", "Count"}))
def test_reserved_column_names(con, role, name):
    reserved = SA_RESERVED if role == "sa" else QI_RESERVED
    cols = {"q": "q", "sa": "d"}
    cols["q" if role == "qi" else "sa"] = name
    _src(con, q=cols["q"], sa=cols["sa"], id="pid")
    pub = lambda: _pub(con, id="pid", qi=[cols["q"], "extra"], sa=cols["sa"]).release()  # noqa: E731
    if name.lower() in reserved:
        msg = unchanged(con, pub, "cannot be named")
        assert ", ".join(QI_RESERVED) in msg and ", ".join(SA_RESERVED) in msg
    else:
        assert pub().release == 1


def test_reserved_name_rename_hint_works(con):
    _src(con, q="release")
    msg = unchanged(con, lambda: _pub(con, qi=["release"]).release(), "RENAME")
    hint = msg.split("e.g. ")[1].replace("<source>", "src")
    con.execute(hint)
    assert _pub(con, source="v", qi=["release_"]).release().release == 1


# ------------------------------------------------------------------------ misuse
def test_project_names_are_case_insensitive(released):
    """'WARD' and 'Ward' would be project 'ward''s tables (DuckDB resolves table
    names case-insensitively): a release under them is refused, naming 'ward'
    (issue 33; docs/contracts.md), and never mixes tables; reads find 'ward'."""
    con = released
    con.execute("CREATE TABLE other AS SELECT * FROM src WHERE id < 100")
    fix = r"project '{}' differs only in case from existing project 'ward' .*use 'ward' to continue it"
    unchanged(con, lambda: _pub(con, "WARD", source="other").release(), fix.format("WARD"))
    unchanged(con, lambda: _pub(con, "Ward", m=4).release(), fix.format("Ward"))
    unchanged(con, lambda: _pub(con, "WARD").release(), fix.format("WARD"))
    unchanged(con, lambda: Publisher.open(con, "wArD").release(), fix.format("wArD"))
    assert _pub(con, "ward").release().release == 2
    assert [r for (r,) in con.execute("SELECT release FROM sqlanon_private.ward__ledger ORDER BY 1").fetchall()] == [1, 2]
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'sqlanon_WARD%'").fetchall() == [(0,)]
    assert len(status(con, "WARD")) == 2


def _consistent(con, project="ward"):
    """Ledger releases are 1..k, and each release's membership equals its count."""
    led = con.execute(f"SELECT release, published FROM sqlanon_private.{project}__ledger ORDER BY 1").fetchall()
    mem = con.execute("SELECT release, count(*) FROM sqlanon__membership_rows(?) GROUP BY 1 ORDER BY 1", [project]).fetchall()
    assert [r for r, _ in led] == list(range(1, len(led) + 1))
    assert led == mem
    return len(led)


@pytest.mark.parametrize("first", [True, False], ids=["first-release", "later-release"])
def test_concurrent_releases_from_two_cursors(con, first):
    _src(con, n=20000)
    if not first:
        _pub(con).release()
    before = _consistent(con) if not first else 0
    barrier, out = threading.Barrier(2), []

    def run():
        cur = con.cursor()
        pub = _pub(cur)
        barrier.wait()
        try:
            out.append(pub.release().release)
        except SqlanonError as exc:
            out.append(str(exc))
        except Exception as exc:  # a raw exception fails the test below
            out.append(exc)
        finally:
            cur.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = [x for x in out if isinstance(x, int)]
    errors = [x for x in out if not isinstance(x, int)]
    assert done == [before + 1] and len(errors) == 1, out
    assert "is being released by another connection" in errors[0] and "nothing was written" in errors[0]
    assert _consistent(con) == before + 1
    assert sqlanon.audit(con, "ward", 3).verdict == "safe"


def test_two_threads_on_one_connection(con):
    """Sharing one connection: the second release either runs after the first or
    is refused (open transaction) - the history stays consistent."""
    _src(con, n=20000)
    barrier, out = threading.Barrier(2), []
    pubs = [_pub(con), _pub(con)]

    def run(p):
        barrier.wait()
        try:
            out.append(p.release().release)
        except SqlanonError as exc:
            out.append(str(exc))

    threads = [threading.Thread(target=run, args=(p,)) for p in pubs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(isinstance(x, int) or "running a release in another thread" in x for x in out), out
    assert _consistent(con) == sum(isinstance(x, int) for x in out) >= 1


def test_dropped_membership_table(released):
    released.execute("DROP TABLE sqlanon_private.ward_membership")
    unchanged(released, lambda: _pub(released).release(), "is damaged: its table 'sqlanon_private.ward_membership' is missing")


@pytest.mark.parametrize("table,edit", [("membership", "DELETE FROM {t} WHERE id < 10"),
                                        ("qit", "DELETE FROM {t} WHERE group_id % 2 = 0"),
                                        ("st", "UPDATE {t} SET count = 2 WHERE group_id % 3 = 0"),
                                        ("membership", "INSERT INTO {t} SELECT id, group_id, is_counterfeit, d, "
                                                       "first_release + 1, NULL FROM {t}")])
def test_state_edited_by_hand(released, table, edit):
    name = f"sqlanon_private.ward_{table}" if table == "membership" else f"sqlanon_ward_{table}"
    released.execute(edit.format(t=name))
    unchanged(released, lambda: _pub(released).release(), f"is damaged: table '{name}' holds")


def test_read_only_connection(tmp_path):
    db = tmp_path / "ro.duckdb"
    con = sqlanon.connect(db)
    _src(con)
    _pub(con).release()
    con.close()
    ro = duckdb.connect(str(db), read_only=True)
    try:
        unchanged(ro, lambda: _pub(ro).release(), "read-only")
    finally:
        ro.close()


# --------------------------------------------------------------------------- CLI
def _cli(*args):
    r = CliRunner().invoke(main, [str(a) for a in args])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    return r


def _file_db(tmp_path):
    db = tmp_path / "x.duckdb"
    con = sqlanon.connect(db)
    _src(con)
    con.close()
    return db


def _md5_file(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return tables_md5(con)
    finally:
        con.close()


RELEASE = ["--source", "src", "--id", "id", "--qi", "q", "--sa", "d", "--m", "3"]


def test_cli_locked_database_by_another_process(tmp_path):
    """Another process holds the file (e.g. a release running there): a clean
    error, exit 2, nothing written."""
    db = _file_db(tmp_path)
    before = _md5_file(db)
    holder = duckdb.connect(str(db))  # this process holds DuckDB's file lock
    try:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        for args in (["release", db, "ward", *RELEASE], ["status", db, "ward"], ["audit", db, "ward", "--m", "3"]):
            r = subprocess.run([sys.executable, "-m", "sqlanon", *map(str, args)], capture_output=True, text=True,
                               env=env, timeout=120)
            assert r.returncode == 2, (args, r.stderr)
            assert "in use by another process" in r.stderr and "Traceback" not in r.stderr, r.stderr
    finally:
        holder.close()
    assert _md5_file(db) == before


_SECOND_RELEASE = """
import sys
import sqlanon
from sqlanon.errors import LockHeld
try:
    con = sqlanon.connect(sys.argv[1])
    sqlanon.Publisher(con, "ward", source="src", id="id", qi=["q"], sa="d", m=3).release()
except LockHeld as exc:
    print("LockHeld:", exc)
"""


def test_two_python_processes_releasing_one_file(tmp_path):
    """Issue 33: a second Python process releasing a file that another one
    holds (a release running there) gets our LockHeld - naming the file, the
    holder's PID and what to do - instead of DuckDB's raw IOException; the
    database is unchanged."""
    db = _file_db(tmp_path)
    Publisher(con := sqlanon.connect(db), "ward", source="src", id="id", qi=["q"], sa="d", m=3).release()
    con.close()
    before = _md5_file(db)  # every table (the holder's sqlanon.connect rewrites the macros: not the bytes)
    holder = sqlanon.connect(db)  # this process (a release in progress) holds DuckDB's file lock
    try:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        r = subprocess.run([sys.executable, "-c", _SECOND_RELEASE, str(db)], capture_output=True, text=True,
                           env=env, timeout=120)
    finally:
        holder.close()
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.startswith(f"LockHeld: cannot open database {str(db)!r}: it is in use by another process "
                               f"(PID {os.getpid()})"), r.stdout
    assert "IOException" not in r.stdout and "close it there" in r.stdout
    assert _md5_file(db) == before


def test_cli_not_a_duckdb_file(tmp_path):
    db = tmp_path / "notes.duckdb"
    db.write_text("not a database\n")
    for args in (["release", db, "ward", *RELEASE], ["status", db, "ward"], ["audit", db, "ward", "--m", "3"],
                 ["check", db, "src", "--qi", "q", "--sa", "d"]):
        r = _cli(*args)
        assert r.exit_code == 2 and "not a DuckDB database file" in r.output, r.output
    assert db.read_text() == "not a database\n"


def test_cli_missing_directory(tmp_path):
    r = _cli("release", tmp_path / "no" / "such" / "x.duckdb", "ward", *RELEASE)
    assert r.exit_code == 2 and "does not exist" in r.output, r.output
    assert not (tmp_path / "no").exists()


def test_cli_release_errors_exit_2(tmp_path):
    db = _file_db(tmp_path)
    before = _md5_file(db)
    r = _cli("release", db, "ward", "--source", "src", "--id", "id", "--qi", "nosuch", "--sa", "d", "--m", "3")
    assert r.exit_code == 2 and "is not a column" in r.output
    r = _cli("release", db, "ward", "--source", "src", "--id", "id", "--qi", "release", "--sa", "d", "--m", "3")
    assert r.exit_code == 2 and "cannot be named" in r.output
    assert _md5_file(db) == before


def test_cli_audit_csv(tmp_path):
    db = _file_db(tmp_path)
    assert _cli("release", db, "ward", *RELEASE).exit_code == 0
    before = _md5_file(db)
    r = _cli("audit", db, "ward", "--m", "3", "--csv", tmp_path / "no" / "dir" / "f.csv")
    assert r.exit_code == 2 and "cannot write the --csv file" in r.output, r.output
    r = _cli("audit", db, "ward", "--m", "3", "--csv", tmp_path / "f.csv")
    assert r.exit_code == 0 and "person ids" in r.output and "private" in r.output, r.output
    assert (tmp_path / "f.csv").exists() and _md5_file(db) == before


def test_cli_demo_refuses_an_existing_file(tmp_path):
    db = _file_db(tmp_path)
    before = _md5_file(db)
    r = _cli("demo", "--db", db, "--releases", "2")
    assert r.exit_code == 2 and "--force" in r.output and "holds 1 tables or views" in r.output, r.output
    assert _md5_file(db) == before


@pytest.mark.slow
def test_cli_demo_force_touches_only_its_own_tables(tmp_path):
    db = _file_db(tmp_path)
    con = sqlanon.connect(db)
    _pub(con).release()  # the user's own project next to the demo's
    con.close()
    before = _md5_file(db)
    for _ in range(2):  # the second run replaces the first run's demo tables
        r = _cli("demo", "--db", db, "--releases", "2", "--force")
        assert r.exit_code == 0 and r.output.count("audit: safe") == 2, r.output
    after = _md5_file(db)
    # (the database's record of every project's persons, sqlanon_private._persons,
    # gains the demo's: the shared-persons check of issue 33; the user's rows stay)
    shared = ("x", "sqlanon_private", "_persons")
    assert {k: v for k, v in after.items() if k in before and k != shared} == {
        k: v for k, v in before.items() if k != shared}
    con = sqlanon.connect(db)
    try:
        mine = con.execute("SELECT count(*) FROM sqlanon_private._persons WHERE project <> 'adult'").fetchone()[0]
    finally:
        con.close()
    assert mine == before[shared][0]
    demo = [k for k in after if k[2].startswith("sqlanon_adult_") or (k[1] == "sqlanon_private" and k[2].startswith("adult_"))]
    assert len(demo) >= 6 and sum(k[1] == "sqlanon_private" for k in demo) >= 4
    assert all(k[2] in ("adult_pool", "adult_now") or k in demo for k in after if k not in before)


# ------------------------------------------------- issue 33: the smaller ones
def test_empty_source_says_it_is_empty(con):
    _src(con, n=0)
    unchanged(con, lambda: _pub(con).release(), r"source 'src' is empty: a release needs persons, at least m = 3 "
                                                r"of them with 3 distinct values of SA column 'd'; fill it")


def test_one_value_source_says_what_is_missing(con):
    _src(con, n=40)
    con.execute("UPDATE src SET d = 'v1'")
    msg = unchanged(con, lambda: _pub(con).release(), r"source 'src' has 40 rows but only 1 distinct value of SA "
                                                      r"column 'd': m = 3 needs at least 3 distinct values")
    assert "v1" not in msg and "<= 1" not in msg
    con.execute("UPDATE src SET d = 'v' || (id % 2)")  # two values: the plain "choose m <= 2"
    unchanged(con, lambda: _pub(con).release(), r"m = 3 is above the 2 distinct values of SA column 'd' in 'src'; "
                                                r"choose m <= 2")


SA_SPELLINGS = {  # SA type -> two spellings of one value (DuckDB compares them equal), and two other values
    "DOUBLE": ("'0.0'::DOUBLE", "'-0.0'::DOUBLE", "1.5", "2.5"),
    "FLOAT": ("'0.0'::FLOAT", "'-0.0'::FLOAT", "1.5", "2.5"),
    "DOUBLE NaN": ("'nan'::DOUBLE", "'-nan'::DOUBLE", "1.5", "2.5"),
}


@pytest.mark.parametrize("model", ["dynamic-anatomy", "anatomy", "m-invariance", "sliced-bucket", "unprotected"])
@pytest.mark.parametrize("sa_type", list(SA_SPELLINGS))
def test_sa_values_canonicalised_as_duckdb_compares_them(con, model, sa_type):
    """-0.0 and 0.0 (NaN and -NaN) are one value to DuckDB: every model
    publishes them as one (the anatomy models grouped them as two, 100 of 200
    groups then held 2 values at l = 3), and its groups hold l distinct ones."""
    typ = sa_type.split()[0]
    case = " ".join(f"WHEN {i} THEN ({v})::{typ}" for i, v in enumerate(SA_SPELLINGS[sa_type]))
    con.execute(f"CREATE TABLE src AS SELECT range AS id, range % 37 AS q, CASE range % 4 {case} END AS d "
                "FROM range(600)")
    kw = {"l": 3} if "anatomy" in model else {"m": 3}
    r = Publisher(con, "p", source="src", id="id", qi=["q"], sa="d", model=model, **kw).release()
    assert r.exposed == 0 or model == "unprotected"
    st = "sqlanon_p_st WHERE release = 1"
    assert con.execute(f"SELECT count(DISTINCT d::VARCHAR) FROM {st}").fetchall() == [(3,)]
    if model != "unprotected":
        assert con.execute(f"SELECT count(*) FROM (SELECT group_id FROM {st} GROUP BY ALL "
                           "HAVING count(DISTINCT d) < 3)").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM sqlanon_private.p_membership WHERE d::VARCHAR LIKE '-%'"
                           ).fetchall() == [(0,)]


def test_collated_sa_is_refused(con):
    """A collation makes several spellings one value to DuckDB, which the
    published (uncollated) tables would show as different values: refused,
    naming the column and the fix, without a value."""
    con.execute("CREATE TABLE src (id INTEGER, q INTEGER, d VARCHAR COLLATE NOCASE)")
    con.execute("INSERT INTO src SELECT range, range % 37, ['flu', 'FLU', 'cold', 'cough'][range % 4 + 1] "
                "FROM range(200)")
    msg = unchanged(con, lambda: _pub(con).release(),
                    r"SA column 'd' of 'src' has 1 value that DuckDB compares equal to other spellings \(a "
                    r"collation such as NOCASE")
    assert "flu" not in msg.lower()
    con.execute("CREATE VIEW v AS SELECT * REPLACE (lower(d) AS d) FROM src")
    assert _pub(con, source="v").release().release == 1


def _csv(folder):
    path = folder / "patients.csv"
    path.write_text("id,q,d\n" + "".join(f"{i},{i % 7},v{i % 4}\n" for i in range(40)))
    return path


def test_csv_given_as_the_database(tmp_path, monkeypatch):
    """`sqlanon release patients.csv ...` opened the CSV as a database, printed
    a release and kept it nowhere (rc 0): now a clear error, and nothing made."""
    monkeypatch.chdir(tmp_path)
    path = _csv(tmp_path)
    before = path.read_bytes()
    res = CliRunner().invoke(main, ["release", "patients.csv", "p3", "--source", "patients", "--id", "id", "--qi",
                                    "q", "--sa", "d", "--m", "3"])
    assert res.exit_code == 2, res.output
    assert ("'patients.csv' is not a DuckDB database file (a CSV file?); give a DuckDB database, and load the file "
            "into it as a table first, e.g. duckdb DB.duckdb \"CREATE TABLE patients AS FROM 'patients.csv'\"") \
        in res.output
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["patients.csv"]
    with pytest.raises(SqlanonError, match="is not a DuckDB database file"):
        sqlanon.connect(path)
    res = CliRunner().invoke(main, ["check", "patients.csv", "t", "--qi", "q", "--sa", "d"])
    assert res.exit_code == 2 and "is not a DuckDB database file" in res.output


def test_csv_given_as_a_table(tmp_path, monkeypatch):
    """`sqlanon check DB patients.csv` with that file in the folder ended in a
    traceback; as a release's source DuckDB would read the file in the table's
    place: both refused, the database unchanged."""
    monkeypatch.chdir(tmp_path)
    _csv(tmp_path)
    db = tmp_path / "w.duckdb"
    con = sqlanon.connect(db)
    _src(con)
    _pub(con).release()
    fix = (r"'patients.csv' is a file, not a table of the database; load it as a table first, e.g. CREATE TABLE "
           r"patients AS FROM 'patients.csv'")
    unchanged(con, lambda: _pub(con, "p3", source="patients.csv", qi=["q"]).release(), fix)
    before = tables_md5(con)
    con.close()
    for args in (["check", str(db), "patients.csv", "--qi", "q", "--sa", "d"],
                 ["release", str(db), "p3", "--source", "patients.csv", "--id", "id", "--qi", "q", "--sa", "d",
                  "--m", "3"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2 and "is a file, not a table of the database" in res.output, res.output
        assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
    con = sqlanon.connect(db)
    assert tables_md5(con) == before
    con.close()

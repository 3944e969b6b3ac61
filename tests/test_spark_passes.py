"""The Spark translation passes (sqlanon/engines/spark/passes.py), one fixture
each: DuckDB SQL, and what that pass alone makes of it in Spark SQL (compared
after a round trip through sqlglot's Spark dialect, so that only the tree
counts, not how a sqlglot version prints it). Needs no pyspark. The
``spark``-marked test runs every fixture on Spark and on DuckDB and compares
the results (what matters: the same values on both engines)."""

from __future__ import annotations

import os

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from sqlanon.engines.spark import passes

MACROS = {"twice": (["x"], sqlglot.parse_one("x * 2"))}


def _resolve(n: exp.Table):
    if n.name == "t" and n.text("db") == "s":
        return exp.Table(this=exp.to_identifier("s__t"), alias=n.args["alias"].copy())
    return None


# pass -> (DuckDB SQL, Spark SQL after that pass alone, DuckDB SQL for the result check or None)
FIXTURES = {
    "tables": ("SELECT * FROM s.t AS x", "SELECT * FROM s__t AS x", None),
    "ordered_list": (
        "SELECT list(v ORDER BY k DESC) FROM t",
        "SELECT TRANSFORM(ARRAY_SORT(COLLECT_LIST(STRUCT(k AS k0, v AS v)), (l, r) -> CASE WHEN l.k0 IS NULL AND "
        "r.k0 IS NULL THEN 0 WHEN l.k0 IS NULL THEN 1 WHEN r.k0 IS NULL THEN -1 WHEN l.k0 < r.k0 THEN 1 "
        "WHEN l.k0 > r.k0 THEN -1 ELSE 0 END), s -> s.v) FROM t",
        "SELECT list(v ORDER BY k DESC) FROM (VALUES (1, 'a'), (3, 'b'), (NULL, 'c'), (2, 'd')) AS t(k, v)"),
    "list_slice": (
        "SELECT x[2:3] FROM t", "SELECT SLICE(x, 2, GREATEST(((3) - (2)) + 1, 0)) FROM t",
        "SELECT [1, 2, 3, 4][2:3], [1, 2, 3][2:], [1, 2, 3][3:2]"),
    "list_element": (
        # sqlglot's parser holds a typed index 0-based (x[1] as 0, x[1 + CAST(...)] as 0 + CAST(...)): the pass
        # reads each as written (the m-invariance ghost draw anchor[1 + (h % n)::BIGINT] hit index 0 on Spark)
        "SELECT x[1], x[-1], x[i], x[1 + CAST(h % 3 AS BIGINT)] FROM t",
        "SELECT ELEMENT_AT(x, 1), ELEMENT_AT(x, -1), ELEMENT_AT(x, NULLIF(CAST(i AS INT), 0)), "
        "ELEMENT_AT(x, NULLIF(CAST(1 + CAST(h % 3 AS BIGINT) AS INT), 0)) FROM t",
        "SELECT [10, 20, 30][1], [10, 20, 30][-1], [10, 20, 30][i], [10, 20][5], [10, 20, 30][1 + (h % 3)::BIGINT], "
        "[10, 20, 30][h::INTEGER], [10, 20, 30][i - 2], [10, 20, 30][0], [[1, 2], [3, 4]][i::INT][1::BIGINT] "
        "FROM (SELECT 2 AS i, 3 AS h)"),
    "lambda_index": (
        "SELECT list_filter(x, lambda v, i: i > 1) FROM t", "SELECT FILTER(x, (v, i) -> (i + 1) > 1) FROM t",
        "SELECT list_filter(['a', 'b', 'c'], lambda v, i: i > 1), "
        "list_filter(['a', 'b', 'c'], lambda v, i: ((5 >> (i - 1)) & 1) = 1)"),
    "cte_hint": ("WITH c AS MATERIALIZED (SELECT 1 AS a) SELECT a FROM c", "WITH c AS (SELECT 1 AS a) SELECT a FROM c",
                 "WITH c AS MATERIALIZED (SELECT 1 AS a) SELECT a FROM c"),
    "row_text": (
        "SELECT row(a, b)::VARCHAR FROM t",
        "SELECT CONCAT('(', CONCAT_WS(', ', COALESCE(CAST(a AS STRING), 'NULL'), COALESCE(CAST(b AS STRING), "
        "'NULL')), ')') FROM t", "SELECT row(1, 'x', NULL)::VARCHAR"),
    "row": ("SELECT row(a, b) FROM t", "SELECT STRUCT(a, b) FROM t", "SELECT row(1, 2) = row(1, 2)"),
    "list_reduce": (
        "SELECT list_reduce(x, lambda a, b: a + b) FROM t",
        "SELECT AGGREGATE(SLICE(x, 2, GREATEST(SIZE(x) - 1, 0)), ELEMENT_AT(x, 1), (a, b) -> a + b) FROM t",
        "SELECT list_reduce([1, 2, 3], lambda a, b: a * 10 + b), list_reduce([4], lambda a, b: a + b)"),
    "overlaps": ("SELECT x && y FROM t", "SELECT ARRAYS_OVERLAP(x, y) FROM t", "SELECT [1, 2] && [2, 3], [1] && [4]"),
    "renamed": (
        "SELECT list_position(x, 1), error('no'), hash(a) FROM t",
        "SELECT ARRAY_POSITION(x, 1), RAISE_ERROR('no'), XXHASH64(a) FROM t",
        "SELECT list_position([5, 6, 7], 6), list_intersect([1, 2], [2, 3])"),
    "inline_macros": ("SELECT twice(a + 1) FROM t", "SELECT ((a + 1) * 2) FROM t", "SELECT twice(1 + 1)"),
}


def test_a_bound_parameter_keeps_the_index_as_written():
    """``x[$i - 1]``: the parser leaves an index with a parameter as written
    (no type); bound to a literal, it must not be read as shifted."""
    sql = passes.translate("SELECT x[$i - 1], x[$i] FROM t", {"i": 3}).sql("spark")
    assert _spark_sql(sql) == _spark_sql("SELECT ELEMENT_AT(x, NULLIF(CAST(3 - 1 AS INT), 0)), ELEMENT_AT(x, 3) FROM t")


def _spark_sql(sql: str) -> str:
    return sqlglot.parse_one(sql, read="spark").sql("spark")


def test_every_pass_has_a_fixture():
    assert {p.__name__ for p in passes.PASSES} == set(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_pass(name):
    duck, expected, _ = FIXTURES[name]
    alone = passes.translate(duck, resolve=_resolve, macros=MACROS, passes=(getattr(passes, name),))
    assert _spark_sql(alone.sql("spark")) == _spark_sql(expected)
    # the other passes leave this fixture's construct alone (each pass owns its node)
    others = tuple(p for p in passes.PASSES if p.__name__ != name)
    without = passes.translate(duck, resolve=_resolve, macros=MACROS, passes=others)
    assert without.sql("spark") != alone.sql("spark")


@pytest.mark.slow
@pytest.mark.spark
def test_the_passes_give_duckdbs_results_on_spark():
    if os.environ.get("SQLANON_EXPECT_INSTALLED"):
        import pyspark  # noqa: F401
    else:
        pytest.importorskip("pyspark")
    from sqlanon.engines.spark import session

    spark = session("local[1]")
    con = duckdb.connect()
    con.execute("CREATE MACRO twice(x) AS x * 2")
    for name, (_, _, check) in sorted(FIXTURES.items()):
        if check is None:
            continue
        want = [tuple(r) for r in con.execute(check).fetchall()]
        got = [tuple(r) for r in spark.sql(passes.translate(check, macros=MACROS).sql("spark")).collect()]
        assert got == want, (name, got, want)


def test_columns_over_an_inlined_star_macro():
    """COLUMNS(lambda ...) over a table macro whose body is ``SELECT * FROM
    <one table>`` (the published tables' readers, macros/published.sql) takes
    that table's columns; over anything else it is still refused."""
    from sqlanon.engines.spark.errors import SparkSQLError
    from sqlanon.engines.spark.macros import inline_table_macros

    tmacros = {"rows_of": ([("project", None)], sqlglot.parse_one("SELECT * FROM query_table('sqlanon_' || project || '_st')", read="duckdb")),
               "joined": ([("project", None)], sqlglot.parse_one("SELECT * FROM a JOIN b USING (k)", read="duckdb"))}
    cols = {"sqlanon_p_st": ["release", "group_id", "occupation", "count"]}

    def columns_of(t):
        return cols[t.name]

    tree = sqlglot.parse_one("SELECT release, COLUMNS(lambda c: c NOT IN ('release', 'group_id', 'count')) AS sa "
                             "FROM rows_of('p')", read="duckdb")
    out = inline_table_macros(tree, tmacros, columns_of).sql("duckdb")
    assert "occupation AS sa" in out.replace('"', "") and "sqlanon_p_st" in out
    with pytest.raises(SparkSQLError, match="only over one table"):
        inline_table_macros(sqlglot.parse_one("SELECT COLUMNS(lambda c: c <> 'k') FROM joined('p')", read="duckdb"),
                            tmacros, columns_of)

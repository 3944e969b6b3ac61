"""One definition of a numeric column type: macro sqlanon__numeric_type, used by
sqlanon_ncp, the publisher (numeric QI get ranges) and t-closeness."""

from __future__ import annotations

import duckdb
import pytest

import sqlanon

TYPES = {"TINYINT": True, "INTEGER": True, "BIGINT": True, "UHUGEINT": True, "FLOAT": True, "DOUBLE": True,
         "DECIMAL(10,2)": True, "VARCHAR": False, "INTEGER[]": False, "DATE": False, "BOOLEAN": False}


@pytest.mark.parametrize("typ", sorted(TYPES))
def test_numeric_type_macro(con, typ):
    assert con.execute("SELECT sqlanon__numeric_type(?)", [typ]).fetchall() == [(TYPES[typ],)]


def test_publisher_and_ncp_agree_on_a_decimal_qi(con):
    """A DECIMAL QI is numeric for both: generalized to a range, and its NCP the
    same in the ledger and in sqlanon_ncp over the published groups."""
    con.execute("CREATE TABLE src AS SELECT range AS id, (range % 9)::DECIMAL(6, 1) AS w, "
                "'d' || (range % 4) AS disease FROM range(60)")
    r = sqlanon.Publisher(con, "p", source="src", id="id", qi=["w"], sa="disease", m=3, output="generalized").release()
    shown = [v for (v,) in con.execute("SELECT DISTINCT w FROM sqlanon_p_published").fetchall()]
    assert any("-" in v for v in shown) and not any("{" in v or "," in v for v in shown), shown  # ranges
    con.execute("CREATE TABLE g AS SELECT m.group_id, s.w FROM sqlanon_private.p_membership m JOIN src s USING (id) "
                "WHERE NOT m.is_counterfeit")
    assert sqlanon.metrics.ncp(con, "g", ["w"], "group_id")[0] == pytest.approx(r.ncp)


def test_publisher_needs_the_macros():
    con = duckdb.connect()
    con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease FROM range(40)")
    with pytest.raises(sqlanon.SqlanonError, match=r"lacks sqlanon's macros.*sqlanon.connect\(\)"):
        sqlanon.Publisher(con, "p", source="src", id="id", qi=["age"], sa="disease", m=3).release()
    assert con.execute("SELECT table_name FROM duckdb_tables()").fetchall() == [("src",)]

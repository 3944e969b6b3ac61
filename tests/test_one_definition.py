"""Concepts with two spellings must agree (issue 36, "one definition per
concept"): the portable hash of the release templates (sql/_lib/hash.sql.j2)
and of the SQL macro (macros/_validate.sql, sqlanon__portable_hash); the
numeric type names of the macro sqlanon__numeric_type and of
sqlanon.ident.INTEGER_TYPES / FLOAT_TYPES."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from sqlanon import templates
from sqlanon.ident import FLOAT_TYPES, INTEGER_TYPES

TYPES = {  # DuckDB integer type -> its range
    "TINYINT": (-2**7, 2**7 - 1), "SMALLINT": (-2**15, 2**15 - 1), "INTEGER": (-2**31, 2**31 - 1),
    "BIGINT": (-2**63, 2**63 - 1), "HUGEINT": (-2**127, 2**127 - 1), "UTINYINT": (0, 2**8 - 1),
    "USMALLINT": (0, 2**16 - 1), "UINTEGER": (0, 2**32 - 1), "UBIGINT": (0, 2**64 - 1), "UHUGEINT": (0, 2**128 - 1),
}


@pytest.fixture(scope="module")
def hcon():
    c = sqlanon.connect()
    yield c
    c.close()


def _template_hash(x: str, integer: bool, salt: int = 0) -> str:
    env = templates.environment()
    tpl = env.from_string('{% from "_lib/hash.sql.j2" import portable_hash %}'
                          "{{ portable_hash(x, integer, salt) }}")
    return tpl.render(x=x, integer=integer, salt=salt)


@settings(max_examples=60)
@given(data=st.data(), seed=st.integers(0, 2**31 - 2))
def test_the_portable_hash_of_an_integer_is_the_macros(hcon, data, seed):
    typ = data.draw(st.sampled_from(sorted(TYPES)))
    lo, hi = TYPES[typ]
    x = data.draw(st.integers(lo, hi))
    t, m = hcon.execute(f"SELECT {_template_hash('v', True)}, sqlanon__portable_hash(v, $seed) "
                        f"FROM (SELECT $x::{typ} AS v)", {"seed": seed, "x": str(x)}).fetchall()[0]
    assert t == m and 0 <= t < 2**31 - 1


@pytest.mark.parametrize("typ", sorted(TYPES))
def test_the_portable_hash_of_every_integer_type_at_its_ends_is_the_macros(hcon, typ):
    """Both ends of every type's range, and UHUGEINT's values above HUGEINT's
    (the macro cast them to HUGEINT: NULL from 2^127; found by the property above)."""
    lo, hi = TYPES[typ]
    for x in sorted({v for v in (lo, hi, lo + 1, hi - 1, 2**127, 2**127 - 1) if lo <= v <= hi}):
        t, m = hcon.execute(f"SELECT {_template_hash('v', True)}, sqlanon__portable_hash(v, $seed) "
                            f"FROM (SELECT $x::{typ} AS v)", {"seed": 7, "x": str(x)}).fetchall()[0]
        assert t == m and 0 <= t < 2**31 - 1, (typ, x, t, m)


@settings(max_examples=60)
@given(x=st.one_of(st.text(max_size=30), st.floats(allow_nan=False, allow_infinity=False)),
       seed=st.integers(0, 2**31 - 2))
def test_the_portable_hash_of_any_other_value_is_the_macros(hcon, x, seed):
    typ = "VARCHAR" if isinstance(x, str) else "DOUBLE"
    t, m = hcon.execute(f"SELECT {_template_hash('v', False)}, sqlanon__portable_hash(v, $seed) "
                        f"FROM (SELECT $x::{typ} AS v)", {"seed": seed, "x": x}).fetchall()[0]
    assert t == m and 0 <= t < 2**31 - 1


def test_numeric_type_names_agree(hcon):
    """Every type DuckDB names (and a DECIMAL as table_columns spells it): the
    macro calls it numeric exactly when ident lists it as an integer or a float
    type (REAL is DuckDB's other name of FLOAT) or it is a DECIMAL."""
    names = [r[0] for r in hcon.execute("SELECT DISTINCT upper(type_name) FROM duckdb_types()").fetchall()]
    names += ["DECIMAL(18,3)", "DECIMAL(38,0)", "double", "Integer"]
    assert set(INTEGER_TYPES) == set(TYPES)
    for t in names:
        (macro,) = hcon.execute("SELECT sqlanon__numeric_type(?)", [t]).fetchall()[0]
        u = t.upper()
        python = u in INTEGER_TYPES or u in FLOAT_TYPES or u == "REAL" or u.startswith("DECIMAL")
        assert macro == python, t

"""Generalization primitives vs pure-Python references."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


def ref_range(x, w):
    lo = math.floor(x / w) * w
    return f"[{lo}-{lo + w - 1}]"


def ref_prefix(s, keep):
    return s if len(s) <= keep else s[:keep] + "*"


def test_examples(con):
    got = con.execute("SELECT sqlanon_gen_range(23, 10), sqlanon_gen_prefix('47906', 4), sqlanon_suppress(5), "
                      "sqlanon_gen_range(NULL, 10), sqlanon_gen_prefix(NULL, 2)").fetchall()[0]
    assert got == ("[20-29]", "4790*", "*", None, None)


@settings(max_examples=100)
@given(st.integers(-1000, 1000), st.integers(1, 50))
def test_range_matches_reference(con, x, w):
    got = con.execute("SELECT sqlanon_gen_range(?::BIGINT, ?::BIGINT)", [x, w]).fetchall()[0][0]
    assert got == ref_range(x, w)
    lo, hi = (int(v) for v in got[1:-1].rsplit("-", 1)) if not got[1:-1].startswith("-") else (None, None)
    if lo is not None:
        assert lo <= x <= hi


@settings(max_examples=100)
@given(st.text(alphabet="0123456789abc", max_size=8), st.integers(0, 10))
def test_prefix_matches_reference(con, s, keep):
    assert con.execute("SELECT sqlanon_gen_prefix(?, ?)", [s, keep]).fetchall()[0][0] == ref_prefix(s, keep)


def test_bad_args(con):
    with pytest.raises(Exception, match="width"):
        con.execute("SELECT sqlanon_gen_range(5, 0)").fetchall()
    with pytest.raises(Exception, match="keep"):
        con.execute("SELECT sqlanon_gen_prefix('abc', -1)").fetchall()

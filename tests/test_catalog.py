"""Catalog: every public sqlanon_ macro (any helper's) carries a COMMENT and is
named in README.md's SQL reference. Internal sqlanon__ helpers are exempt."""

from __future__ import annotations

from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _public_macros(con):
    return con.execute(
        """SELECT function_name, any_value(comment) FROM duckdb_functions()
           WHERE function_name LIKE 'sqlanon\\_%' ESCAPE '\\' AND function_name NOT LIKE 'sqlanon\\_\\_%' ESCAPE '\\'
             AND function_type IN ('macro', 'table_macro')
           GROUP BY function_name ORDER BY function_name"""
    ).fetchall()


def test_there_are_macros(con):
    names = [n for n, _ in _public_macros(con)]
    assert "sqlanon_k_anonymity" in names and "sqlanon_profile" in names


def test_every_macro_has_a_comment(con):
    missing = [n for n, c in _public_macros(con) if not c]
    assert not missing, f"macros without COMMENT ON MACRO: {missing}"


def test_every_macro_is_in_readme(con):
    missing = [n for n, _ in _public_macros(con) if f"`{n}" not in README and f"{n}(" not in README]
    assert not missing, f"macros missing from README.md's SQL reference: {missing}"

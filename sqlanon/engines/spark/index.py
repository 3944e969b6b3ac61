"""List element indexes as DuckDB reads them. sqlglot's DuckDB parser shifts
an index it types as an integer to 0-based (``x[1]`` is held as 0, and so is
``x[1 + CAST(h AS BIGINT)]``, as ``0 + CAST(...)``) and leaves any other
(``x[k]``, ``x[$i - 1]``) as written; its writers undo the shift by the same
typing rule. The Spark translation needs the written 1-based index
(``element_at``), and parameters bound as literals would change the typing, so
the index is put back as written, and the Bracket marked ``offset=1``, right
after parsing (:func:`one_based`).

>>> import sqlglot
>>> t = one_based(sqlglot.parse_one("SELECT a[1 + CAST(h AS BIGINT)], a[k], a[-1]", read="duckdb"))
>>> [b.expressions[0].sql("duckdb") for b in t.find_all(exp.Bracket)]
['1 + CAST(h AS BIGINT)', 'k', '-1']
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.expressions import apply_index_offset


def is_element(n: exp.Expression) -> bool:
    """``x[i]``, a list element (not a slice, a struct field or a map key)."""
    return (isinstance(n, exp.Bracket) and len(n.expressions) == 1 and not n.args.get("json_access")
            and not isinstance(n.expressions[0], exp.Slice)
            and not (isinstance(n.expressions[0], exp.Literal) and n.expressions[0].is_string))


def duckdb_index(n: exp.Bracket) -> exp.Expression:
    """The 1-based index of a list element as DuckDB reads it: what sqlglot's
    DuckDB writer makes of the tree's index (the inverse of its parser's shift,
    by the same typing rule)."""
    return apply_index_offset(n.this.copy(), [n.expressions[0].copy()], 1, dialect="duckdb")[0]


def one_based(tree: exp.Expression) -> exp.Expression:
    """Every list element's index of ``tree`` (as parsed from DuckDB's SQL)
    put back to the 1-based index written, the Bracket marked ``offset=1``
    (sqlglot's writers honour the mark). Done before parameters are bound: the
    parser's shift depends on the index's type, and ``a[$i - 1]`` (not shifted:
    a parameter has no type) would read as shifted once ``$i`` is a literal."""
    for b in reversed(list(tree.find_all(exp.Bracket, bfs=False))):  # (innermost first)
        if is_element(b) and not b.args.get("offset"):
            b.set("expressions", [duckdb_index(b)])
            b.set("offset", 1)
    return tree

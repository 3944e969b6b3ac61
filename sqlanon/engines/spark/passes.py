"""sqlanon's SQL (DuckDB's dialect) as Spark SQL, without a SparkSession (no
pyspark needed): sqlglot parses the statement, parameters are bound as typed
literals, sqlanon's macros are inlined (:mod:`.macros`), and the DuckDB
constructs that sqlglot's Spark dialect writes wrong are rewritten by the
passes of :data:`PASSES`: each a small function ``(node, ctx) -> node or None``
(None: not its node), tried in order on every node, the first answer taken
(tests/test_spark_passes.py has a fixture for each).

>>> translate("SELECT x[2], error('no') FROM t").sql("spark")
"SELECT ELEMENT_AT(x, 2), RAISE_ERROR('no') FROM t"
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from .errors import SparkSQLError
from .index import duckdb_index, is_element, one_based
from .macros import _inline, inline_table_macros, scalar_macros, table_macros


@dataclass
class Context:
    """What a pass may use: ``resolve(table)`` -> a replacement table node (or
    None), the scalar ``macros``, and ``fix``, the whole chain (for the parts
    of a node a pass replaced: sqlglot's transform does not descend into them)."""

    resolve: Callable | None
    macros: dict
    fix: Callable[[exp.Expression], exp.Expression]


def tables(n: exp.Expression, c: Context) -> exp.Expression | None:
    """A table reference: what ``resolve`` makes of it (a state table's view)."""
    if isinstance(n, exp.Table) and n.name and not isinstance(n.parent, (exp.Create, exp.Drop)):
        return (c.resolve(n) if c.resolve else None) or n
    return None


def ordered_list(n: exp.Expression, c: Context) -> exp.Expression | None:
    """``list(x ORDER BY k)``: a sorted collect_list (:func:`_ordered_list`)."""
    if isinstance(n, exp.ArrayAgg) and isinstance(n.this, exp.Order):
        return _ordered_list(n.this.copy().transform(c.fix))
    return None


def list_slice(n: exp.Expression, c: Context) -> exp.Expression | None:
    """DuckDB's 1-based inclusive slice ``x[a:b]`` (a, b optional) is
    ``slice(x, a, b - a + 1)``."""
    if not (isinstance(n, exp.Bracket) and len(n.expressions) == 1 and isinstance(n.expressions[0], exp.Slice)):
        return None
    sl, arr = n.expressions[0], n.this.copy().transform(c.fix)
    a = sl.this.copy().transform(c.fix) if sl.this is not None else exp.Literal.number(1)
    b = sl.expression.copy().transform(c.fix) if sl.expression is not None else exp.func("size", arr.copy(), dialect="spark")
    length = exp.func("greatest", exp.Sub(this=exp.Paren(this=b), expression=exp.Paren(this=a.copy())) + 1,
                      exp.Literal.number(0))
    return exp.Anonymous(this="slice", expressions=[arr.copy(), a, length])


def list_element(n: exp.Expression, c: Context) -> exp.Expression | None:
    """A list element ``x[i]``: DuckDB's index is 1-based (0 and out of range:
    NULL), Spark's ``x[i]`` 0-based; ``element_at`` is 1-based (negative from
    the end, NULL out of range, an error at 0: guarded by ``nullif``). The
    index is taken as DuckDB reads it (:func:`.index.one_based`): sqlglot's parser
    shifts every index it types as an integer - a literal, but also a CAST or
    ``1 + CAST(...)`` - to 0-based, so the tree's index is not the written one
    (``anchor[1 + (h % len)::BIGINT]`` reached Spark as index ``0 + ...``: one
    element off, and index 0 failed with INVALID_INDEX_OF_ZERO)."""
    if not is_element(n):
        return None
    i = n.expressions[0] if n.args.get("offset") == 1 else duckdb_index(n)
    lit = i.this if isinstance(i, exp.Neg) else i
    if isinstance(lit, exp.Literal) and not lit.is_string:
        if int(lit.this) == 0:
            return exp.Null()
        i = i.copy()
    else:
        i = exp.func("nullif", exp.cast(i.copy().transform(c.fix), "int"), exp.Literal.number(0))
    return exp.Anonymous(this="element_at", expressions=[n.this.copy().transform(c.fix), i])


def lambda_index(n: exp.Expression, c: Context) -> exp.Expression | None:
    """DuckDB's element index in list_filter / list_transform is 1-based, Spark's 0-based."""
    if not (isinstance(n, exp.Lambda) and len(n.expressions) == 2
            and isinstance(n.parent, (exp.ArrayFilter, exp.Transform))):
        return None
    i = n.expressions[1].name

    def shift(x: exp.Expression) -> exp.Expression:
        # (sqlglot reads a lambda variable as a Column or, in newer versions, a bare Identifier)
        if ((isinstance(x, exp.Column) and not x.table and x.name == i)
                or (isinstance(x, exp.Identifier) and x.name == i and not isinstance(x.parent, (exp.Column, exp.Lambda)))):
            return exp.Paren(this=exp.Add(this=exp.column(i), expression=exp.Literal.number(1)))
        return x
    body = n.this.copy().transform(shift)
    return exp.Lambda(this=body.transform(c.fix), expressions=[e.copy() for e in n.expressions])


def cte_hint(n: exp.Expression, c: Context) -> exp.Expression | None:
    """DuckDB's MATERIALIZED hint of a CTE dropped (Spark plans CTEs itself)."""
    if not (isinstance(n, exp.CTE) and n.args.get("materialized") is not None):
        return None
    n = n.copy()
    n.set("materialized", None)
    return n.transform(c.fix)


def row_text(n: exp.Expression, c: Context) -> exp.Expression | None:
    """DuckDB's text of an unnamed struct: ``(v1, v2, NULL)``."""
    if not (isinstance(n, exp.Cast) and _is_row(n.this) and n.to.is_type("text", "varchar")):
        return None
    parts = [exp.func("coalesce", exp.cast(e.copy().transform(c.fix), "text"), exp.Literal.string("NULL"))
             for e in n.this.expressions]
    return exp.Anonymous(this="concat", expressions=[
        exp.Literal.string("("), exp.Anonymous(this="concat_ws", expressions=[exp.Literal.string(", "), *parts]),
        exp.Literal.string(")")])


def row(n: exp.Expression, c: Context) -> exp.Expression | None:
    """``row(a, b)``: ``struct(a, b)``."""
    if not _is_row(n):
        return None
    return exp.Anonymous(this="struct", expressions=[e.copy().transform(c.fix) for e in n.expressions])


def list_reduce(n: exp.Expression, c: Context) -> exp.Expression | None:
    """DuckDB's reduce from the first element: aggregate over the rest,
    starting at the first."""
    if not (isinstance(n, exp.Anonymous) and str(n.this).lower() == "list_reduce"):
        return None
    arr, lam = (e.copy().transform(c.fix) for e in n.expressions)
    rest = exp.Anonymous(this="slice", expressions=[arr.copy(), exp.Literal.number(2), exp.func(
        "greatest", exp.Sub(this=exp.func("size", arr.copy(), dialect="spark"),
                            expression=exp.Literal.number(1)), exp.Literal.number(0))])
    return exp.Anonymous(this="aggregate", expressions=[
        rest, exp.Anonymous(this="element_at", expressions=[arr.copy(), exp.Literal.number(1)]), lam])


def overlaps(n: exp.Expression, c: Context) -> exp.Expression | None:
    """``a && b``: arrays_overlap (sqlglot writes &&, which Spark does not parse)."""
    if not isinstance(n, exp.ArrayOverlaps):
        return None
    return exp.Anonymous(this="arrays_overlap",
                         expressions=[n.this.copy().transform(c.fix), n.expression.copy().transform(c.fix)])


def renamed(n: exp.Expression, c: Context) -> exp.Expression | None:
    """A DuckDB function Spark has under another name (:data:`_RENAMED`)."""
    if not (isinstance(n, exp.Anonymous) and str(n.this).lower() in _RENAMED):
        return None
    return exp.Anonymous(this=_RENAMED[str(n.this).lower()],
                         expressions=[e.copy().transform(c.fix) for e in n.expressions])


def inline_macros(n: exp.Expression, c: Context) -> exp.Expression | None:
    """A call of one of sqlanon's scalar SQL macros: its body, arguments substituted."""
    if not (isinstance(n, exp.Anonymous) and str(n.this).lower() in c.macros):
        return None
    return _inline(n, c.macros).transform(c.fix)


#: the node rewrites, in the order they are tried
PASSES = (tables, ordered_list, list_slice, list_element, lambda_index, cte_hint, row_text, row, list_reduce,
          overlaps, renamed, inline_macros)


def translate(tree: exp.Expression | str, params=None, *, resolve=None, macros=None, tmacros=None,
              columns_of=None, passes=PASSES) -> exp.Expression:
    """A statement in sqlanon's SQL (DuckDB's dialect; text or a sqlglot tree)
    as a sqlglot tree that writes Spark SQL (``.sql("spark")``): parameters
    bound as literals, ``resolve(table)`` -> a replacement table node (or None),
    scalar ``macros`` (:func:`scalar_macros`) inlined, table macros and
    ``COLUMNS(...)`` expanded when ``columns_of(table) -> names`` is given, and
    the :data:`PASSES` applied. Needs no SparkSession (tests/test_transpile.py
    checks every template through it)."""
    tree = sqlglot.parse_one(tree, read="duckdb") if isinstance(tree, str) else tree.copy()
    tree = _bind(one_based(tree), params)
    macros = scalar_macros() if macros is None else macros
    if columns_of is not None and any(isinstance(n, exp.Columns) or (isinstance(n, exp.Table) and isinstance(
            n.this, exp.Anonymous)) for n in tree.walk()):
        tree = inline_table_macros(tree, table_macros() if tmacros is None else tmacros, columns_of)

    def fix(n: exp.Expression) -> exp.Expression:
        for p in passes:
            out = p(n, ctx)
            if out is not None:
                return out
        return n

    ctx = Context(resolve=resolve, macros=macros, fix=fix)
    return tree.transform(fix)


def _rename_tables(tree: exp.Expression, views: dict[str, str]) -> exp.Expression:
    """``tree`` with its references to the CTEs ``views`` (name -> view) read
    from the views (aliased by the CTE's name, so qualified columns still bind)."""
    def swap(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Table) and not n.args.get("db") and n.name.lower() in views:
            alias = n.args.get("alias") or exp.TableAlias(this=exp.to_identifier(n.name))
            return exp.Table(this=exp.to_identifier(views[n.name.lower()]), alias=alias.copy())
        return n
    return tree.copy().transform(swap) if views else tree.copy()


# DuckDB functions that Spark has under another name (same arguments, same
# result). hash: what the templates still hash with DuckDB's hash() is a join or
# grouping key or a storage order, never what a release publishes (that is the
# portable hash, sql/_lib/hash.sql.j2); xxhash64 keeps such keys 64-bit (Spark's
# hash() is 32-bit: 10^6 distinct keys would collide about a hundred times).
_RENAMED = {"list_intersect": "array_intersect", "list_position": "array_position", "error": "raise_error",
            "hash": "xxhash64"}


def _is_row(n: exp.Expression) -> bool:
    return isinstance(n, exp.Anonymous) and str(n.this).lower() == "row"


def _ordered_list(order: exp.Order) -> exp.Expression:
    """DuckDB's ``list(x ORDER BY k1 [DESC], ...)`` in Spark: the structs (k1, ...,
    x) collected, sorted by a comparator (each key ascending or descending,
    NULLs last as in DuckDB), then x of each."""
    keys = order.expressions
    fields = ", ".join(f"'k{i}', {k.this.sql('spark')}" for i, k in enumerate(keys))
    cmp = "0"
    for i in reversed(range(len(keys))):
        d = -1 if keys[i].args.get("desc") else 1
        a, b = f"l.k{i}", f"r.k{i}"
        cmp = (f"CASE WHEN {a} IS NULL AND {b} IS NULL THEN {cmp} WHEN {a} IS NULL THEN 1 WHEN {b} IS NULL THEN -1 "
               f"WHEN {a} < {b} THEN {-d} WHEN {a} > {b} THEN {d} ELSE {cmp} END")
    sql = (f"transform(array_sort(collect_list(named_struct({fields}, 'v', {order.this.sql('spark')})), "
           f"(l, r) -> {cmp}), s -> s.v)")
    return sqlglot.parse_one(sql, read="spark")


def _bq(name: str) -> str:
    """A Spark SQL identifier in backticks."""
    return "`" + name.replace("`", "``") + "`"


def _bind(tree: exp.Expression, params) -> exp.Expression:
    """Parameters as typed literals in the tree: ``$name`` from a dict, ``?`` and
    ``$1`` from a list."""
    if not params:
        return tree
    pos = iter(params) if isinstance(params, (list, tuple)) else None

    def lit(v):
        if isinstance(v, (list, tuple)):
            return exp.Array(expressions=[lit(x) for x in v])
        return exp.convert(v)

    def fix(n):
        if isinstance(n, exp.Placeholder):
            name = n.name
            if isinstance(params, dict):
                if name not in params:
                    raise SparkSQLError(f"parameter ${name} has no value")
                return lit(params[name])
            if name and name.isdigit():
                return lit(params[int(name) - 1])
            return lit(next(pos))
        return n
    return tree.transform(fix)


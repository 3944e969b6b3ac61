"""sqlanon's SQL macros (macros/*.sql) for an engine without them (no pyspark
needed): the scalar macros parsed once and inlined into a call's place, the
table macros inlined as subqueries, DuckDB's ``COLUMNS(lambda c: ...)`` star
expanded to the columns it selects. The one definition in macros/ serves both
engines.

>>> import sqlglot
>>> m = {"twice": (["x"], sqlglot.parse_one("x * 2"))}
>>> _inline(sqlglot.parse_one("twice(a + 1)"), m).sql()
'((a + 1) * 2)'
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

from ..._resources import macros_dir
from .errors import SparkSQLError
from .index import one_based

_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)\s+AS\s+(?!TABLE\b)(.*?);\s*$",
                    re.S | re.M | re.I)


def scalar_macros() -> dict[str, tuple[list[str], exp.Expression]]:
    """sqlanon's scalar SQL macros (macros/*.sql), name -> (parameters, body),
    parsed once: the Spark engine inlines a call by substituting the arguments
    into the body, so the one definition serves both engines."""
    out: dict[str, tuple[list[str], exp.Expression]] = {}
    for f in sorted(macros_dir().glob("*.sql")):
        text = re.sub(r"--[^\n]*", "", f.read_text())
        for m in _MACRO.finditer(text):
            params = [p.split(":=")[0].strip() for p in m.group(2).split(",") if p.strip()]
            try:
                out[m.group(1).lower()] = (params, one_based(sqlglot.parse_one(m.group(3), read="duckdb")))
            except sqlglot.errors.ParseError:
                continue  # a macro sqlglot cannot read is not inlined (and fails on Spark if called)
    return out


_TABLE_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)\s+AS\s+TABLE\b(.*?);\s*$",
                          re.S | re.M | re.I)


def table_macros() -> dict[str, tuple[list[tuple[str, exp.Expression | None]], exp.Expression]]:
    """sqlanon's table macros (macros/*.sql), name -> ([(parameter, default)],
    query): the Spark engine inlines a call as a subquery (the checks and the
    audit keep one definition for both engines)."""
    out = {}
    for f in sorted(macros_dir().glob("*.sql")):
        text = re.sub(r"--[^\n]*", "", f.read_text())
        for m in _TABLE_MACRO.finditer(text):
            params = []
            for p in (p.strip() for p in m.group(2).split(",") if p.strip()):
                name, _, default = p.partition(":=")
                params.append((name.strip(), sqlglot.parse_one(default, read="duckdb") if default.strip() else None))
            try:
                out[m.group(1).lower()] = (params, one_based(sqlglot.parse_one(m.group(3), read="duckdb")))
            except sqlglot.errors.ParseError:
                continue
    return out


def _fold_text(e: exp.Expression) -> str:
    """The text of a constant string expression ('a' || 'b' || ...)."""
    if isinstance(e, exp.Literal) and e.is_string:
        return e.this
    if isinstance(e, exp.DPipe):
        return _fold_text(e.this) + _fold_text(e.expression)
    if isinstance(e, exp.Paren):
        return _fold_text(e.this)
    if isinstance(e, exp.Cast):
        return _fold_text(e.this)
    raise SparkSQLError(f"the Spark engine needs a constant table name here, not {e.sql('duckdb')}")


def inline_table_macros(tree: exp.Expression, tmacros, columns_of) -> exp.Expression:
    """Calls of sqlanon's table macros in FROM as subqueries (arguments
    substituted for the parameters), ``query_table('...')`` of a constant name
    as that table, and DuckDB's ``COLUMNS(lambda c: ...)`` star as the columns
    of the FROM table (``columns_of(table) -> names``) it selects."""
    def call(n):
        if isinstance(n, exp.Table) and isinstance(n.this, exp.Anonymous):
            name = str(n.this.this).lower()
            if name == "query_table":
                parts = _fold_text(n.this.expressions[0]).split(".")
                t = exp.to_table(".".join(exp.to_identifier(x).sql("duckdb") for x in parts), dialect="duckdb")
                if n.args.get("alias"):
                    t.set("alias", n.args["alias"].copy())
                return t
            if name in tmacros:
                params, body = tmacros[name]
                args = list(n.this.expressions)
                given = {}
                for (pname, default), i in zip(params, range(len(params))):
                    kw = next((a for a in args if isinstance(a, exp.PropertyEQ) and a.this.name == pname), None)
                    if kw is not None:
                        given[pname] = kw.expression
                    elif i < len(args) and not isinstance(args[i], exp.PropertyEQ):
                        given[pname] = args[i]
                    else:
                        given[pname] = default
                new = body.copy().transform(lambda c: given[c.name].copy()
                                            if isinstance(c, exp.Column) and not c.table and c.name in given
                                            and given[c.name] is not None else c)
                alias = n.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
                return exp.Subquery(this=inline_table_macros(new, tmacros, columns_of), alias=alias.copy())
        return n
    tree = tree.transform(call)
    # COLUMNS(lambda c: pred): the FROM table's columns that satisfy pred
    for sel in list(tree.find_all(exp.Select)):
        stars = [c for c in sel.expressions for c in c.find_all(exp.Columns)
                 if c.find_ancestor(exp.Select) is sel]
        if not stars:
            continue
        src = sel.args.get("from_") or sel.args.get("from")
        base = None if src is None or sel.args.get("joins") else _star_source(src.this)
        if base is None:
            raise SparkSQLError("the Spark engine expands COLUMNS(...) only over one table")
        names = columns_of(base)
        for star in stars:
            lam = star.this
            var = lam.expressions[0].name
            keep = []
            for cname in names:
                if _lambda_test(lam.this, var, cname):
                    keep.append(exp.column(cname, quoted=True))
            if not keep:
                raise SparkSQLError(f"COLUMNS(...) selects no column of {src.this.sql('duckdb')}")
            if star.args.get("unpack"):
                parent = star.parent
                i = parent.expressions.index(star)
                parent.set("expressions", parent.expressions[:i] + keep + parent.expressions[i + 1:])
            elif len(keep) == 1:
                star.replace(keep[0])
            else:
                raise SparkSQLError("COLUMNS(...) outside a function call must select one column on Spark")
    return tree


def _star_source(node: exp.Expression) -> exp.Table | None:
    """The one table whose columns ``node`` (a FROM item) has: a table, or a
    subquery ``SELECT * FROM <one table>`` (an inlined table macro such as
    ``sqlanon__qit_rows``, with or without a WHERE), followed down; None for
    anything else."""
    while isinstance(node, exp.Subquery):
        inner = node.this
        if not isinstance(inner, exp.Select) or inner.args.get("joins") or inner.args.get("group") \
                or len(inner.expressions) != 1 or not isinstance(inner.expressions[0], exp.Star):
            return None
        src = inner.args.get("from_") or inner.args.get("from")
        if src is None:
            return None
        node = src.this
    return node if isinstance(node, exp.Table) else None


def _lambda_test(e: exp.Expression, var: str, name: str):
    """The value of a COLUMNS lambda's predicate for column ``name`` (the forms
    sqlanon's macros use: =, <>, IN, NOT, AND, OR over the variable and string
    literals)."""
    if isinstance(e, exp.Paren):
        return _lambda_test(e.this, var, name)
    if isinstance(e, (exp.Identifier, exp.Column)) and e.name == var:
        return name
    if isinstance(e, exp.Literal):
        return e.this
    if isinstance(e, exp.Not):
        return not _lambda_test(e.this, var, name)
    if isinstance(e, exp.And):
        return _lambda_test(e.this, var, name) and _lambda_test(e.expression, var, name)
    if isinstance(e, exp.Or):
        return _lambda_test(e.this, var, name) or _lambda_test(e.expression, var, name)
    if isinstance(e, exp.EQ):
        return _lambda_test(e.this, var, name) == _lambda_test(e.expression, var, name)
    if isinstance(e, exp.NEQ):
        return _lambda_test(e.this, var, name) != _lambda_test(e.expression, var, name)
    if isinstance(e, exp.In):
        return _lambda_test(e.this, var, name) in [_lambda_test(x, var, name) for x in e.expressions]
    raise SparkSQLError(f"the Spark engine cannot evaluate COLUMNS(lambda ...): {e.sql('duckdb')}")


def _argument(e: exp.Expression) -> exp.Expression:
    """A macro's argument as it replaces its parameter: in parentheses unless
    it is one term (``x * 2`` with x = ``a + 1`` is ``(a + 1) * 2``)."""
    if isinstance(e, (exp.Column, exp.Literal, exp.Paren, exp.Func, exp.Placeholder, exp.Null, exp.Boolean)):
        return e.copy()
    return exp.Paren(this=e.copy())


def _inline(node: exp.Expression, macros) -> exp.Expression:
    """A call of a scalar macro: its body, the arguments in place of the parameters."""
    if isinstance(node, exp.Anonymous) and str(node.this).lower() in macros:
        params, body = macros[str(node.this).lower()]
        args = dict(zip(params, node.expressions))
        new = body.copy()
        new = new.transform(lambda n: _argument(args[n.name])
                            if isinstance(n, exp.Column) and not n.table and n.name in args else n)
        return exp.Paren(this=new.transform(lambda n: _inline(n, macros)))
    return node


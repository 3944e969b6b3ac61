"""Seed 003's published form, sliced buckets, computed from a release's
published tables (the QI table and the sensitive table of the release
contract) and nothing else (docs/sliced_bucket.md, "Slicing").

Seed 003 (§5.1, Definition 5, Tables 6-8) publishes each bucket with the QI
columns cut into column groups of correlated attributes (the mean-square
contingency coefficient of its eq. 3, as in Li et al. 2012, "Slicing"), the
values of each column group and the SA values put in an order of their own
inside the bucket, and each cell (a column in a bucket) generalized (its
Algorithm 8). sqlanon publishes the contract's anatomy form (every row's exact
QI and the bucket's SA counts); the sliced form is a function of it and of a
seed, so it discloses nothing the anatomy form does not, and every check of
the anatomy form (the release gate, the audit) holds for it.

>>> import sqlanon
>>> con = sqlanon.connect()
>>> _ = con.execute("CREATE TABLE src AS SELECT range AS id, 20 + range % 9 AS age, "
...                 "CASE WHEN range % 9 < 4 THEN 'F' ELSE 'M' END AS sex, (47900 + range % 13)::VARCHAR AS zip, "
...                 "'d' || (range % 5) AS disease FROM range(60)")
>>> _ = sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age", "sex", "zip"], sa="disease", m=3,
...                       model="sliced-bucket", cach=0).release()
>>> column_groups(con, "demo", columns=2)
[['age', 'sex'], ['zip']]
>>> sliced(con, "demo").iloc[0].to_dict()
{'release': 1, 'group_id': 1, 'row': 1, 'age': '20', 'sex': 'F', 'zip': '479*', 'disease': 'd1'}
"""

from __future__ import annotations

from itertools import combinations

import duckdb

from . import templates
from .engines import as_engine
from .errors import SqlanonError
from .ident import FLOAT_TYPES, INTEGER_TYPES, quote
from .project import Project

_KEYS = ("release", "group_id", "count")


def _columns(con, project: str) -> tuple[Project, list[dict], str]:
    """The project, its QI columns ({name, q (quoted), numeric, i}) read from
    the published QI table, and its quoted SA column read from the sensitive table."""
    p = Project(project)
    if not (p.exists(con, "qit") and p.exists(con, "st")):
        raise SqlanonError(f"project {project!r} has no published anatomy tables ({p.table('qit')}, "
                           f"{p.table('st')}); publish a release with output='anatomy' first")
    eng = as_engine(con)
    types = eng.columns(p.table("qit"))
    qi = [{"name": c, "q": quote(c), "i": i,
           "numeric": t.split("(")[0] in INTEGER_TYPES + FLOAT_TYPES or t.startswith("DECIMAL")}
          for i, (c, t) in enumerate((c, t) for c, t in types.items() if c not in _KEYS)]
    sa = [c for c in eng.columns(p.table("st")) if c not in _KEYS]
    return p, qi, quote(sa[0])


def _release(con, p: Project, release: int | None) -> int:
    last = con.execute(f"SELECT max(release) FROM {p.ref('qit')}").fetchall()[0][0]
    if last is None:
        raise SqlanonError(f"project {p.name!r} has published no release yet")
    if release is None:
        return int(last)
    if not con.execute(f"SELECT count(*) FROM {p.ref('qit')} WHERE release = ?", [release]).fetchall()[0][0]:
        raise SqlanonError(f"project {p.name!r} has no release {release!r}; its releases are 1..{last}")
    return int(release)


def correlations(con: duckdb.DuckDBPyConnection, project: str, *, release: int | None = None,
                 bins: int = 10) -> dict[tuple[str, str], float]:
    """phi^2 (seed 003 eq. 3) of every pair of QI columns over a release's
    published QI table (default the last); numeric columns in ``bins``
    equal-frequency bins."""
    p, qi, _ = _columns(con, project)
    r = _release(con, p, release)
    if len(qi) < 2:
        return {}
    pairs = list(combinations(range(len(qi)), 2))
    ctx = {"cols": qi, "qit": p.ref("qit"), "pairs": pairs}
    (stmt,) = templates.render(templates.environment(), "_slicing/phi.sql.j2", ctx)
    rows = con.execute(stmt, templates.params_for(stmt, {"r": r, "bins": bins})).fetchall()
    return {(qi[a]["name"], qi[b]["name"]): float(v) for a, b, v in rows}


def group_columns(names: list[str], phi: dict[tuple[str, str], float], columns: int) -> list[list[str]]:
    """Average-linkage clustering of the columns on phi^2 until ``columns``
    groups are left (Slicing's attribute partitioning, with the number of
    columns given): the two groups of highest mean pairwise phi^2 merge first
    (ties: the earlier columns). Groups keep the columns' order.

    >>> group_columns(["age", "sex", "zip"], {("age", "sex"): 0.4, ("age", "zip"): 0.1, ("sex", "zip"): 0.0}, 2)
    [['age', 'sex'], ['zip']]
    >>> group_columns(["a", "b", "c"], {}, 3)
    [['a'], ['b'], ['c']]
    """
    if not 1 <= columns:
        raise SqlanonError(f"columns must be at least 1, got {columns!r}")
    sim = lambda a, b: phi.get((a, b), phi.get((b, a), 0.0))  # noqa: E731
    groups = [[n] for n in names]
    while len(groups) > columns:
        best = max(((sum(sim(a, b) for a in g for b in h) / (len(g) * len(h)), -i, -j)
                    for i, g in enumerate(groups) for j, h in enumerate(groups) if i < j))
        i, j = -best[1], -best[2]
        groups[i] = sorted(groups[i] + groups[j], key=names.index)
        del groups[j]
    return groups


def column_groups(con: duckdb.DuckDBPyConnection, project: str, *, columns: int = 2,
                  release: int | None = None) -> list[list[str]]:
    """The QI columns of ``project`` in ``columns`` groups of correlated
    columns (seed 003: age and gender together, zip code alone)."""
    _, qi, _ = _columns(con, project)
    names = [c["name"] for c in qi]
    return group_columns(names, correlations(con, project, release=release), min(columns, len(names)))


def sliced(con: duckdb.DuckDBPyConnection, project: str, *, release: int | None = None, columns: int = 2,
           groups: list[list[str]] | None = None, generalize: bool = True, seed: int = 0, into: str | None = None):
    """Release ``release`` (default the last) of ``project`` in seed 003's
    sliced form: one row per published row, columns release, group_id, row,
    the QI columns, the SA. ``groups`` (default: ``columns`` groups by
    correlation) names the column groups; ``generalize`` (default) generalizes
    every cell to its bucket. Returns a DataFrame, or with ``into`` writes a
    table of that name (replaced) and returns its row count."""
    p, qi, sa = _columns(con, project)
    r = _release(con, p, release)
    by_name = {c["name"]: c for c in qi}
    if groups is None:
        groups = column_groups(con, project, columns=columns, release=r)
    flat = [n for g in groups for n in g]
    unknown = [n for n in flat if n not in by_name]
    if unknown or sorted(flat) != sorted(by_name):
        raise SqlanonError(f"groups {groups!r} must hold every QI column of project {project!r} once "
                           f"({', '.join(by_name)}){'; unknown: ' + ', '.join(map(repr, unknown)) if unknown else ''}")
    tmp = p.scratch("sliced")
    ctx = {"qi": qi, "groups": [[by_name[n] for n in g] for g in groups], "sa": sa, "generalize": generalize,
           "qit": p.ref("qit"), "st": p.ref("st"), "out": quote(tmp)}
    (stmt,) = templates.render(templates.environment(), "_slicing/sliced.sql.j2", ctx)
    con.execute(stmt, templates.params_for(stmt, {"r": r, "seed": seed}))
    try:
        if into is None:
            return con.execute(f"SELECT * FROM temp.{quote(tmp)} ORDER BY group_id, \"row\"").df()
        con.execute(f"CREATE OR REPLACE TABLE {quote(into)} AS SELECT * FROM temp.{quote(tmp)} "
                    "ORDER BY group_id, \"row\"")
        return con.execute(f"SELECT count(*) FROM {quote(into)}").fetchall()[0][0]
    finally:
        con.execute(f"DROP TABLE IF EXISTS temp.{quote(tmp)}")

"""A naive publisher, for tests and benchmarks of the audit: every release is an
independent l-diverse Anatomy (Xiao & Tao 2006) of the current source, written
in the release contract's shape (docs/contracts.md). Seeds 000 (Fig. 1) and
004 (§3) show this to be unsafe over time; the audit finds out how unsafe.

This is the publisher's static Anatomy model (``Publisher(model="anatomy")``,
the documented unsafe baseline; sql/anatomy/), called with the naive
publisher's short signature: rows with a NULL SA value are left out (the
Publisher refuses them) and the rest go through one Publisher release (one
transaction, ledger, parameter checks). The synthetic dynamic histories it
publishes come from :mod:`sqlanon.histories`.

>>> import sqlanon, sqlanon.naive as naive
>>> con = sqlanon.connect()
>>> _ = con.execute("CREATE TABLE src AS SELECT range AS id, range % 10 AS age, 'd' || (range % 4) AS disease FROM range(40)")
>>> naive.publish(con, "demo", "src", qi=["age"], sa="disease", l=3)
1
>>> con.execute("SELECT count(*) FROM sqlanon_membership('demo', 1)").fetchall()
[(40,)]
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from .errors import SqlanonError
from .histories import snapshot
from .ident import qualified, quote, require_columns, require_m, require_qi
from .project import Project

__all__ = ["publish", "history", "snapshot"]


def publish(
    con: duckdb.DuckDBPyConnection,
    project: str,
    source: str,
    *,
    qi: Sequence[str],
    sa: str,
    l: int,
    id: str = "id",
    release: int | None = None,
    seed: int = 0,
) -> int:
    """Publish ``source`` as the next release of ``project`` (``release``, when
    given, must be that next number): an independent l-diverse Anatomy by
    ``Publisher(model="anatomy", l=l, seed=seed)``, written to
    ``sqlanon_<project>_qit / _st``, ``sqlanon_private.<project>_membership``
    (and the project's private state) in one transaction. Rows that do not fit (l-eligibility) or have a
    NULL SA are suppressed. ``seed`` is the project's: every release of a
    project takes the same one. Returns the release number."""
    from .publisher import Publisher

    p = Project(project)
    l = require_m(l, name="l")
    qi = require_qi(con, source, qi)
    require_columns(con, source, [id, sa], role="id/SA column")
    if sa in qi or id in qi or sa == id:
        raise SqlanonError(f"table {source!r}: the id {id!r}, the SA {sa!r} and the QI {qi} must be distinct columns")
    # the Publisher's source: the rows with an SA value, under one name per project
    view = quote(p.scratch("naive"))
    con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT * FROM {qualified(con, source)} "
                f"WHERE {quote(sa)} IS NOT NULL")
    try:
        pub = Publisher(con, project, source=p.scratch("naive"), id=id, qi=qi, sa=sa, model="anatomy", l=l, seed=seed)
        last = pub.last_release()
        if release is not None and release != last + 1:
            if release <= last:
                raise SqlanonError(f"project {project!r} already has release {release}; publish the next number "
                                   f"({last + 1}) or leave release out")
            raise SqlanonError(f"project {project!r} has {last} releases; the next is {last + 1}, not {release}")
        return pub.release().release
    finally:
        con.execute(f"DROP VIEW IF EXISTS temp.{view}")


def history(
    con: duckdb.DuckDBPyConnection,
    project: str,
    pool: str,
    n_releases: int,
    *,
    qi: Sequence[str],
    sa: str,
    l: int,
    id: str = "id",
    seed: int = 0,
    **snapshot_options,
) -> list[int]:
    """Publish ``n_releases`` naive releases of a synthetic dynamic history over
    ``pool`` (see :func:`sqlanon.histories.snapshot`), all with ``seed``.
    Returns the number of rows published per release."""
    sizes = []
    p = Project(project)
    tmp = p.scratch("naive_history")
    for t in range(1, n_releases + 1):
        snapshot(con, pool, tmp, t, sa=sa, n_releases=n_releases, id=id, seed=seed, **snapshot_options)
        r = publish(con, project, tmp, qi=qi, sa=sa, l=l, id=id, seed=seed)
        sizes.append(
            con.execute(
                "SELECT count(*) FROM sqlanon_membership(?, ?)", [project, r]
            ).fetchall()[0][0]
        )
    con.execute(f"DROP TABLE IF EXISTS {quote(tmp)}")
    return sizes

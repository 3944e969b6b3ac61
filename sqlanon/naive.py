"""A naive publisher, for tests and benchmarks of the audit: every release is an
independent l-diverse Anatomy (Xiao & Tao 2006) of the current source, written
in the release contract's shape (docs/contracts.md). Seeds 000 (Fig. 1) and
004 (§3) show this to be unsafe over time; the audit finds out how unsafe.

The grouping is the SQL macro ``sqlanon_anatomy_groups`` (macros/anatomy_groups.sql);
this module only creates tables and moves rows with set-based SQL.

>>> import sqlanon, sqlanon.naive as naive
>>> con = sqlanon.connect()
>>> _ = con.execute("CREATE TABLE src AS SELECT range AS id, range % 10 AS age, 'd' || (range % 4) AS disease FROM range(40)")
>>> naive.publish(con, "demo", "src", qi=["age"], sa="disease", l=3)
1
>>> con.execute("SELECT count(*) FROM sqlanon_demo_membership").fetchall()
[(40,)]
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from .errors import SqlanonError
from .ident import quote, require_columns, require_m, require_qi
from .project import Project

#: group_id of group g (1..G) of release r is r * GROUP_STRIDE + g: the naive
#: publisher never keeps a group, so ids are never reused across releases.
GROUP_STRIDE = 1_000_000_000


def _create_tables(con, project: str, cols: dict[str, str], qi: list[str], sa: str, id_col: str) -> None:
    p = Project(project)
    qi_defs = ", ".join(f"{quote(c)} {cols[c]}" for c in qi)
    con.execute(f"CREATE TABLE IF NOT EXISTS {p.ref('qit')} (release INTEGER, group_id BIGINT, {qi_defs})")
    con.execute(
        f"CREATE TABLE IF NOT EXISTS {p.ref('st')} "
        f"(release INTEGER, group_id BIGINT, {quote(sa)} {cols[sa]}, count BIGINT)"
    )
    con.execute(
        f"CREATE TABLE IF NOT EXISTS {p.ref('mem')} "
        f"(release INTEGER, id {cols[id_col]}, group_id BIGINT, is_counterfeit BOOLEAN, {quote(sa)} {cols[sa]})"
    )


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
    """Publish ``source`` as the next release (or release ``release``) of
    ``project``: an independent l-diverse Anatomy, written to
    ``sqlanon_<project>_qit / _st / _membership`` in one transaction.
    Rows that do not fit (l-eligibility) or have a NULL SA are suppressed.
    Returns the release number."""
    p = Project(project)
    l = require_m(l, name="l")
    qi = require_qi(con, source, qi)
    cols = require_columns(con, source, [id, sa], role="id/SA column")
    if sa in qi or id in qi or sa == id:
        raise SqlanonError(f"table {source!r}: the id {id!r}, the SA {sa!r} and the QI {qi} must be distinct columns")
    con.execute("BEGIN TRANSACTION")
    try:
        _create_tables(con, project, cols, qi, sa, id)
        if release is None:
            release = con.execute(f"SELECT coalesce(max(release), 0) + 1 FROM {p.ref('mem')}").fetchall()[0][0]
        elif con.execute(
            f"SELECT count(*) FROM {p.ref('mem')} WHERE release = ?", [release]
        ).fetchall()[0][0]:
            raise SqlanonError(f"project {project!r} already has release {release}; publish the next number or drop it")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE sqlanon__naive_groups AS "
            "SELECT * FROM sqlanon_anatomy_groups(?, ?, ?, ?, seed := ?)",
            [source, id, sa, l, seed],
        )
        base = int(release) * GROUP_STRIDE
        src_id = quote(id)
        con.execute(
            f"INSERT INTO {p.ref('mem')} "
            f"SELECT ?, s.{src_id}, g.group_id + ?, false, s.{quote(sa)} "
            f"FROM {quote(source)} AS s JOIN sqlanon__naive_groups AS g ON g.id = s.{src_id}",
            [release, base],
        )
        qs = ", ".join("s." + quote(c) for c in qi)
        con.execute(
            f"INSERT INTO {p.ref('qit')} "
            f"SELECT ?, g.group_id + ?, {', '.join('s.' + quote(c) for c in qi)} "
            f"FROM {quote(source)} AS s JOIN sqlanon__naive_groups AS g ON g.id = s.{src_id} "
            # public columns only (group, hash of the QI values): no id- or SA-dependent order
            f"ORDER BY g.group_id, hash({qs})",
            [release, base],
        )
        con.execute(
            f"INSERT INTO {p.ref('st')} "
            f"SELECT release, group_id, {quote(sa)}, count(*) FROM {p.ref('mem')} "
            f"WHERE release = ? GROUP BY ALL ORDER BY ALL",
            [release],
        )
        con.execute("DROP TABLE sqlanon__naive_groups")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return int(release)


def snapshot(
    con: duckdb.DuckDBPyConnection,
    pool: str,
    out: str,
    release: int,
    *,
    sa: str,
    n_releases: int,
    id: str = "id",
    seed: int = 0,
    present_pct: int = 90,
    late_pct: int = 20,
    update_pct: int = 20,
) -> int:
    """Create table ``out`` = the source as it is at ``release`` of a synthetic
    dynamic history over the rows of ``pool`` (deterministic for a seed):

    - a person is born at release 1, or (``late_pct`` %) at a later release: new rows;
    - once born, it is present in a release with probability ``present_pct`` %
      (a rotating window: absences last one or two releases, then the person is
      back): deletions and re-insertions;
    - ``update_pct`` % of the persons get, at one release >= 2, a different SA
      value (drawn from the pool's SA domain) and keep it: updates.

    Returns the number of rows of ``out``."""
    require_columns(con, pool, [id, sa], role="id/SA column")
    if n_releases < 2:
        raise SqlanonError(f"n_releases must be >= 2, got {n_releases}")
    k = max(1, ((n_releases - 1) * 100) // max(1, update_pct))
    i, s = quote(id), quote(sa)
    con.execute(
        f"""
        CREATE OR REPLACE TABLE {quote(out)} AS
        WITH dom AS (SELECT list(DISTINCT {s} ORDER BY {s}) AS vals FROM {quote(pool)} WHERE {s} IS NOT NULL),
        h AS (
            SELECT p.*,
                   CASE WHEN hash({i}, $seed, 'b') % 100 < $late
                        THEN 2 + hash({i}, $seed, 'bt') % ($n - 1) ELSE 1 END AS _birth,
                   hash({i}, $seed, 'p') % 100 AS _hp,
                   2 + hash({i}, $seed, 'u') % $k AS _upd,
                   hash({i}, $seed, 'v') AS _hv
            FROM {quote(pool)} AS p
        )
        SELECT h.* EXCLUDE (_birth, _hp, _upd, _hv) REPLACE (
                   CASE WHEN $t >= _upd AND {s} IS NOT NULL AND len(dom.vals) > 1
                        THEN dom.vals[(((list_position(dom.vals, {s}) + _hv % (len(dom.vals) - 1)) % len(dom.vals)) + 1)::BIGINT]
                        ELSE {s} END AS {s})
        FROM h, dom
        WHERE $t >= _birth AND (_hp + 7 * $t) % 100 < $present
        ORDER BY {i}
        """,
        {"seed": seed, "late": late_pct, "n": n_releases, "k": k, "t": release, "present": present_pct},
    )
    return con.execute(f"SELECT count(*) FROM {quote(out)}").fetchall()[0][0]


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
    ``pool`` (see :func:`snapshot`). Returns the number of rows published per release."""
    sizes = []
    p = Project(project)
    tmp = p.scratch("naive_source")
    for t in range(1, n_releases + 1):
        snapshot(con, pool, tmp, t, sa=sa, n_releases=n_releases, id=id, seed=seed, **snapshot_options)
        r = publish(con, project, tmp, qi=qi, sa=sa, l=l, id=id, seed=seed + t)
        sizes.append(
            con.execute(
                f"SELECT count(*) FROM {p.ref('mem')} WHERE release = ?", [r]
            ).fetchall()[0][0]
        )
    con.execute(f"DROP TABLE IF EXISTS {quote(tmp)}")
    return sizes

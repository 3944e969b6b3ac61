"""Seeded dynamic histories of a source table, for tests, benchmarks and demos.

:func:`snapshot` writes the source as it is at one release of a history over a
pool table, in SQL (births, absences of one or two releases then
re-insertion, SA updates; the demo and the naive publisher's histories).
:func:`history` turns a pool of persons (a DataFrame with an id column) into
the source as it is at each release: the first release holds ``start`` persons;
each later release deletes some present persons, re-inserts some deleted ones,
inserts persons not seen yet, and updates the SA of some present persons to
another value of the pool's domain; a share of the updates goes back to a value
the person had before (a flip-back, seed 003's collusion scenario). Vectorized
numpy on the pool's rows; the same arguments give the same history.

>>> import pandas as pd
>>> pool = pd.DataFrame({"id": range(100), "age": [20 + i % 30 for i in range(100)],
...                      "disease": [f"d{i % 5}" for i in range(100)]})
>>> h = history(pool, "id", "disease", releases=4, start=60, seed=1)
>>> [len(x) for x in h]
[60, 61, 64, 69]
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from .errors import SqlanonError
from .ident import check_project, quote, require_columns


def history(pool: pd.DataFrame, id: str, sa: str, *, releases: int, start: int, delete: float = 0.08,
            insert: float = 0.10, reinsert: float = 0.5, update: float = 0.06, flip_back: float = 0.3,
            seed: int = 0) -> list[pd.DataFrame]:
    """The source at releases 1..``releases`` (a list of DataFrames with the
    pool's columns). Per release after the first, as shares of the present
    persons: ``delete`` leave, ``update`` change SA (``flip_back`` of them back
    to an earlier value of theirs when they have one), ``insert`` new persons
    arrive (from the pool's unused rows, while there are any); ``reinsert`` of
    the persons deleted so far come back."""
    if start > len(pool) or start < 1:
        raise SqlanonError(f"start = {start} must be between 1 and the pool's {len(pool)} rows")
    rng = np.random.default_rng(seed)
    n = len(pool)
    domain = np.array(sorted(pool[sa].dropna().unique()), dtype=object)
    sa_now = pool[sa].to_numpy(dtype=object).copy()
    # values each person had, in the order it had them (a dict, not a set: a set of
    # strings iterates in an order that changes with the process's hash seed)
    earlier = [{v: None} for v in sa_now]
    present = np.zeros(n, dtype=bool)
    present[:start] = True
    seen = present.copy()
    nxt = start
    out = []
    for r in range(1, releases + 1):
        if r > 1:
            idx = np.flatnonzero(present)
            k_del = int(round(delete * len(idx)))
            k_upd = int(round(update * len(idx)))
            gone = np.flatnonzero(seen & ~present)
            back = rng.choice(gone, size=int(round(reinsert * len(gone))), replace=False) if len(gone) else []
            drop = rng.choice(idx, size=k_del, replace=False)
            stay = np.setdiff1d(idx, drop)
            upd = rng.choice(stay, size=min(k_upd, len(stay)), replace=False)
            for i in upd:  # small: a share of the present persons
                prev = [v for v in earlier[i] if v != sa_now[i]]
                if prev and rng.random() < flip_back:
                    v = prev[rng.integers(len(prev))]
                else:
                    others = domain[domain != sa_now[i]]
                    v = others[rng.integers(len(others))]
                sa_now[i] = v
                earlier[i][v] = None
            present[drop] = False
            present[back] = True
            k_ins = min(int(round(insert * len(idx))), n - nxt)
            present[nxt:nxt + k_ins] = True
            seen[nxt:nxt + k_ins] = True
            nxt += k_ins
        df = pool.loc[present].copy()
        df[sa] = sa_now[present]
        out.append(df.reset_index(drop=True))
    return out


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


def publish(con, project: str, frames, *, source: str, progress: bool | None = None, **params) -> list:
    """Release each DataFrame of ``frames`` (e.g. :func:`history`'s) as the
    next release of ``project``: table ``source`` is replaced by the frame,
    then :meth:`sqlanon.Publisher.release` runs (one transaction per release;
    ``params`` are the Publisher's: id, qi, sa, m, model, seed, ...). Returns
    the :class:`sqlanon.ReleaseResult` of every release. A progress bar shows
    on a terminal and in a notebook (:mod:`sqlanon.progress`; ``progress=True``
    / ``False`` forces it on / off)."""
    from .progress import bar
    from .publisher import Publisher

    frames = list(frames)
    if not frames:
        raise SqlanonError("publish needs at least one DataFrame in frames")
    view = f"sqlanon__frame_{check_project(project)}"
    pub, results = None, []
    for frame in bar(frames, desc=f"releases of {project}", enabled=progress):
        con.register(view, frame)
        try:
            con.execute(f"CREATE OR REPLACE TABLE {'.'.join(quote(p) for p in source.split('.'))} AS "
                        f"SELECT * FROM {quote(view)}")
        finally:
            con.unregister(view)
        if pub is None:
            pub = Publisher(con, project, source=source, **params)
        results.append(pub.release())
    return results

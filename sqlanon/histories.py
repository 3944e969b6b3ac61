"""Seeded dynamic histories of a source table, for tests, benchmarks and demos.

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
[60, 62, 64, 66]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import SqlanonError
from .ident import check_project


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
    earlier = [set([v]) for v in sa_now]  # values each person had
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
                earlier[i].add(v)
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


def publish(con, project: str, frames, *, source: str, progress: bool | None = None, **params) -> list:
    """Release each DataFrame of ``frames`` (e.g. :func:`history`'s) as the
    next release of ``project``: table ``source`` is replaced by the frame,
    then :meth:`sqlanon.Publisher.release` runs (one transaction per release;
    ``params`` are the Publisher's: id, qi, sa, m, model, seed, ...). Returns
    the :class:`sqlanon.ReleaseResult` of every release. A progress bar shows
    on a terminal (``progress=True`` / ``False`` forces it on / off)."""
    from .ident import quote
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

"""m-eligibility targets (seed 000, section III).

A table is *m-eligible* when no SA value occurs in more than ``n/m`` of its
rows (``m * max(count) <= n``). Before an m-invariant release the new rows
must be made m-eligible by adding counterfeits and/or deleting rows. These
functions work on the SA counts only (one integer per distinct SA value) and
return the *target* counts, in the same order as the input; the difference
``target - count`` is the number of counterfeits (> 0) or deletions (< 0)
for that value. Materializing the rows is done in SQL (``macros/eligibility.sql``).

Methods (see docs/eligibility.md for the proofs and the paper mapping):

* ``counterfeit`` -- Algorithm 1: add ``m*c_max - n`` rows, each to a least
  frequent value (minimal m-eligible superset).
* ``delete`` -- Algorithm 2 (maximal m-eligible subset); computed as the
  clip at the largest feasible cap, which is provably the same result as the
  paper's iteration ``r_i = max(0, ceil((m c_i - n)/(m-1)))`` (tested).
* ``hybrid`` -- Algorithm 3, the paper's greedy (no optimality proof).
* ``optimal`` -- minimum Definition 7 distance ``sum |c_i - x_i|``, exact, in
  ``O(l log l)``: the best solution clips every count at a cap ``C`` and fills
  the shortfall ``m C - sum min(c_i, C)`` into values below the cap.
* ``random`` -- tau-safety style baseline: counterfeits with uniformly random
  SA values (among the existing ones) until eligible; seeded.

Tie-breaks (default): where several values are equally good, the one that
comes first in the input wins (the SQL macros pass counts ordered by SA value,
so there the smallest SA value wins).
"""

from __future__ import annotations

import random as _rnd
from collections.abc import Sequence
from itertools import accumulate

from .errors import SqlanonError

METHODS = ("optimal", "counterfeit", "delete", "hybrid", "random")


# --------------------------------------------------------------------------- input


def _check(counts: Sequence[int], m) -> tuple[list[int], int]:
    if isinstance(counts, (str, bytes)):
        raise SqlanonError("counts must be a sequence of non-negative integers, one per distinct SA value")
    try:
        c = list(counts)
    except TypeError as exc:
        raise SqlanonError(f"counts must be a sequence of integers, got {counts!r}") from exc
    if not c:
        raise SqlanonError("counts is empty: the table has no rows (or no SA values); nothing to make m-eligible")
    out = []
    for i, v in enumerate(c):
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                try:
                    import numpy as np  # counts from pandas/numpy

                    if isinstance(v, np.integer):
                        v = int(v)
                    else:
                        raise TypeError
                except (ImportError, TypeError):
                    raise SqlanonError(f"count #{i} is {v!r}; counts must be integers >= 1") from None
        if v < 1:
            raise SqlanonError(
                f"count #{i} is {v}; every distinct SA value must occur at least once (drop values with count 0)"
            )
        out.append(v)
    if isinstance(m, bool) or not isinstance(m, int):
        if isinstance(m, float) and m.is_integer():
            m = int(m)
        else:
            raise SqlanonError(f"m must be an integer >= 2, got {m!r}")
    if m < 2:
        raise SqlanonError(f"m must be an integer >= 2, got {m}")
    if m > len(out):
        raise SqlanonError(
            f"m = {m} is larger than the number of distinct SA values ({len(out)}): no table with these "
            f"SA values can be {m}-eligible; lower m to at most {len(out)}"
        )
    return out, m


def is_eligible(counts: Sequence[int], m: int) -> bool:
    """``m * max(counts) <= sum(counts)`` (Definition 3). Empty counts are eligible."""
    c = list(counts)
    return not c or m * max(c) <= sum(c)


# --------------------------------------------------------------------------- helpers


def _fill(base: list[int], cap: int, extra: int) -> list[int]:
    """Add ``extra`` units to ``base`` one at a time, each to a least value
    (first in input order on ties), never above ``cap``. Closed form of the
    repeated "add to the least frequent value" step (water-filling)."""
    if extra <= 0:
        return list(base)
    order = sorted(range(len(base)), key=lambda i: (base[i], i))
    vals = [base[i] for i in order]
    pre = [0, *accumulate(vals)]
    # largest k (number of lowest values raised) and level L with
    # sum_{j<k} (L - vals[j]) <= extra, L <= vals[k] (or cap)
    lo_k = 1
    for k in range(1, len(vals) + 1):
        nxt = vals[k] if k < len(vals) else cap
        need = k * min(nxt, cap) - pre[k]
        lo_k = k
        if need >= extra or nxt >= cap:
            break
    k = lo_k
    level = (extra + pre[k]) // k
    rem = (extra + pre[k]) - level * k
    if level > cap or (level == cap and rem > 0):
        raise AssertionError("fill exceeds cap")  # callers guarantee room
    out = list(base)
    for j in range(k):
        out[order[j]] = level
    # the last rem units go one each to the values now at `level`, first in input
    # order (a value that got one is no longer least) -- exactly Algorithm 1's order
    at_level = [i for i in range(len(out)) if out[i] == level]
    for i in at_level[:rem]:
        out[i] += 1
    return out


def _fill_stepwise(base: list[int], extra: int) -> list[int]:
    """Reference for :func:`_fill` (and Algorithm 1 literally)."""
    out = list(base)
    for _ in range(extra):
        i = min(range(len(out)), key=lambda j: (out[j], j))
        out[i] += 1
    return out


# --------------------------------------------------------------------------- methods


def _counterfeit(c: list[int], m: int) -> list[int]:
    n, top = sum(c), max(c)
    return _fill(c, top, max(0, m * top - n))


def _delete(c: list[int], m: int) -> list[int]:
    """Algorithm 2's result in O(l log l): clip every count at the largest cap C
    with sum(min(c_i, C)) >= m C. The maximal m-eligible subset is unique (see
    docs/eligibility.md), so this equals the paper's iteration (tested against a
    literal implementation), which needs many rounds on skewed counts."""
    s = sorted(c, reverse=True)
    l, n = len(s), sum(s)
    pre = [0, *accumulate(s)]
    best = 0
    for k in range(l + 1):  # caps in [s[k], s[k-1]]: the k largest are clipped
        hi = s[k - 1] if k > 0 else s[0]
        lo = s[k] if k < l else 0
        top = hi if m <= k else min(hi, (n - pre[k]) // (m - k))
        if top >= lo:
            best = max(best, top)
    return [min(v, best) for v in c]


def _delete_literal(c: list[int], m: int) -> list[int]:
    """Algorithm 2 as written: remove r_i = max(0, ceil((m c_i - n)/(m-1))) rows of
    every value, recompute, repeat until eligible."""
    x = list(c)
    while m * max(x) > sum(x):
        n = sum(x)
        x = [xi - max(0, -((n - m * xi) // (m - 1))) for xi in x]
    return x


def _hybrid(c: list[int], m: int, prefer: str = "delete") -> list[int]:
    if prefer not in ("delete", "counterfeit"):
        raise SqlanonError(f"hybrid option prefer must be 'delete' or 'counterfeit', got {prefer!r}")
    x = list(c)
    n = sum(x)
    while m * max(x) > n:
        lo = min(range(len(x)), key=lambda j: (x[j], j))
        hi = min(range(len(x)), key=lambda j: (-x[j], j))
        add = list(x)
        add[lo] += 1
        dele = list(x)
        dele[hi] -= 1
        # R = sum max(0, c_i - N/m), compared exactly: m*R = sum max(0, m c_i - N)
        r_add = sum(max(0, m * v - (n + 1)) for v in add)
        r_del = sum(max(0, m * v - (n - 1)) for v in dele)
        if r_del < r_add or (r_del == r_add and prefer == "delete"):
            x, n = dele, n - 1
        else:
            x, n = add, n + 1
    return x


def _optimal_cap(c: list[int], m: int) -> tuple[int, int]:
    """(cost, cap) of the best cap; smallest cost, then largest cap on ties
    (fewer deletions, closer to the data's own maximum)."""
    s = sorted(c, reverse=True)
    l, n = len(s), sum(s)
    pre = [0, *accumulate(s)]  # pre[k] = sum of the k largest
    best = None
    # segment k: caps C in [s[k], s[k-1]] (s[-1] := s[0]); exactly the k largest are clipped
    for k in range(l + 1):
        hi = s[k - 1] if k > 0 else s[0]
        lo = s[k] if k < l else 0
        if lo > hi:
            continue
        rest = n - pre[k]
        cands = {lo, hi}
        if m > k:
            q = rest // (m - k)  # kink: (m-k) C = rest
            for v in (q, q + 1):
                if lo <= v <= hi:
                    cands.add(v)
        for cap in cands:
            dele = pre[k] - k * cap
            add = max(0, (m - k) * cap - rest)
            key = (dele + add, -cap)
            if best is None or key < best:
                best = key
    return best[0], -best[1]


def _optimal(c: list[int], m: int) -> list[int]:
    _, cap = _optimal_cap(c, m)
    base = [min(v, cap) for v in c]
    return _fill(base, cap, max(0, m * cap - sum(base)))


def _random(c: list[int], m: int, seed: int = 0, max_additions: int | None = None) -> list[int]:
    """tau-safety style: add counterfeits with uniformly random SA values
    (existing ones) until eligible. Raises SqlanonError after ``max_additions``
    (default ``100 * n``): with m close to l the random walk may practically never end."""
    rng = _rnd.Random(seed)
    x = list(c)
    n, top, l = sum(x), max(x), len(x)
    limit = 100 * n if max_additions is None else max_additions
    added = 0
    while m * top > n:
        if added >= limit:
            raise SqlanonError(
                f"method 'random' did not reach {m}-eligibility within {limit} counterfeits "
                f"(seed {seed}); lower m or raise max_additions"
            )
        i = rng.randrange(l)
        x[i] += 1
        n += 1
        added += 1
        if x[i] > top:
            top = x[i]
    return x


def random_fill(counts: Sequence[int], m: int, *, seed: int = 0, max_additions: int | None = None) -> list[int]:
    """The ``random`` baseline over a whole SA *domain*: ``counts`` may hold
    zeros for values the data holder knows but the table lacks (the tau-safety
    counterfeit draws from the attribute's domain, not only from the values a
    batch of new rows happens to contain). Drawing from only the present values
    makes the walk diverge whenever ``m`` is close to their number.

    >>> random_fill([4, 0, 0, 0], 2, seed=1)   # 8 random counterfeits; Algorithm 1 needs 4
    [6, 1, 1, 4]
    """
    c = [int(v) for v in counts]
    if any(v < 0 for v in c) or not any(c):
        raise SqlanonError(f"random_fill needs counts >= 0 with at least one row, got {c}")
    if isinstance(m, bool) or not isinstance(m, int) or not 2 <= m <= len(c):
        raise SqlanonError(f"m must be an integer with 2 <= m <= {len(c)} (the domain size), got {m!r}")
    return _random(c, m, seed=seed, max_additions=max_additions)


def targets(
    counts: Sequence[int], m: int, method: str = "optimal", *, priority: Sequence | None = None, **options
) -> list[int]:
    """Target counts making ``counts`` m-eligible, in the order of ``counts``.

    ``counts``: one integer >= 1 per distinct SA value. ``m``: 2 <= m <= len(counts).
    Options: ``hybrid``: ``prefer='delete'|'counterfeit'`` (Algorithm 3 tie,
    default ``'delete'`` as in the paper's ``R_del <= R_add``); ``random``:
    ``seed=0``, ``max_additions=None``. Ties (which of several equally
    frequent values gets a counterfeit or, in Algorithm 3, loses a row): the
    value first in input order, or with ``priority`` (one sort key per count)
    the value with the smallest key; e.g. ``priority=range(l, 0, -1)`` = last wins.

    >>> targets([5, 3, 1, 1], 3, "counterfeit")
    [5, 4, 3, 3]
    >>> targets([5, 3, 1, 1], 3, "delete")
    [2, 2, 1, 1]
    >>> targets([5, 3, 1, 1], 3, "hybrid")
    [3, 3, 2, 1]
    >>> targets([10, 9, 7, 1], 3)
    [9, 9, 7, 2]
    """
    c, m = _check(counts, m)
    if priority is not None:
        pr = list(priority)
        if len(pr) != len(c):
            raise SqlanonError(f"priority has {len(pr)} entries for {len(c)} counts; give one sort key per count")
        order = sorted(range(len(c)), key=lambda i: (pr[i], i))
        permuted = targets([c[i] for i in order], m, method, **options)
        out = [0] * len(c)
        for pos, i in enumerate(order):
            out[i] = permuted[pos]
        return out
    allowed = {"hybrid": {"prefer"}, "random": {"seed", "max_additions"}}.get(method, set())
    if method not in METHODS:
        raise SqlanonError(f"unknown eligibility method {method!r}; use one of {', '.join(METHODS)}")
    bad = set(options) - allowed
    if bad:
        raise SqlanonError(
            f"method {method!r} takes no option {sorted(bad)[0]!r}"
            + (f"; its options are {', '.join(sorted(allowed))}" if allowed else "")
        )
    if method == "optimal":
        return _optimal(c, m)
    if method == "counterfeit":
        return _counterfeit(c, m)
    if method == "delete":
        return _delete(c, m)
    if method == "hybrid":
        return _hybrid(c, m, **options)
    return _random(c, m, **options)


def distance(counts: Sequence[int], target: Sequence[int]) -> int:
    """Definition 7: ``sum |c_i - x_i|``."""
    return sum(abs(a - b) for a, b in zip(counts, target, strict=True))


def modifications(counts: Sequence[int], m: int) -> int:
    """The minimum Definition 7 distance to an m-eligible table (the ``optimal`` cost)."""
    c, m = _check(counts, m)
    return _optimal_cap(c, m)[0]


def cost(counts: Sequence[int], m: int, *, seed: int = 0, methods: Sequence[str] = METHODS) -> dict[str, dict[str, int]]:
    """Per method: ``{"additions", "deletions", "modifications"}`` for ``targets(counts, m, method)``.
    ``random`` uses ``seed``."""
    c, m = _check(counts, m)
    out = {}
    for meth in methods:
        opts = {"seed": seed} if meth == "random" else {}
        t = targets(c, m, meth, **opts)
        add = sum(max(0, b - a) for a, b in zip(c, t))
        dele = sum(max(0, a - b) for a, b in zip(c, t))
        out[meth] = {"additions": add, "deletions": dele, "modifications": add + dele}
    return out


# --------------------------------------------------------------------------- tables

SQL_METHODS = ("optimal", "counterfeit", "delete")


def plan(con, table: str, sa: str, m: int, method: str = "optimal", *, into: str | None = None, **options):
    """Targets for column ``sa`` of ``table`` as rows ``(sa_value, count, target, delta)``
    ordered by SA value (ties go to the smallest SA value, as in the SQL macro).

    ``optimal``/``counterfeit``/``delete`` run the SQL macro
    ``sqlanon_eligibility_targets``; ``hybrid``/``random`` aggregate the counts in
    SQL and compute the targets here (the list is one number per SA value). With
    ``into``, the rows are also written to a TEMP table of that name (replaced if
    it exists) -- the *plan* table read by ``sqlanon_eligibility_deletions`` and
    ``sqlanon_eligibility_counterfeits``.
    """
    from .ident import quote, require_columns

    require_columns(con, table, [sa], role="SA column")
    if method not in METHODS:
        raise SqlanonError(f"unknown eligibility method {method!r}; use one of {', '.join(METHODS)}")
    rel = quote(table) if "." not in table else ".".join(quote(p) for p in table.split("."))
    nulls, n, l = con.execute(
        f"SELECT count(*) FILTER (WHERE {quote(sa)} IS NULL), count(*), count(DISTINCT {quote(sa)}) FROM {rel}"
    ).fetchone()
    if n == 0:
        raise SqlanonError(f"table {table!r} is empty; nothing to make m-eligible")
    if nulls:
        raise SqlanonError(
            f"column {sa!r} of table {table!r} has {nulls} NULL values; filter them out "
            f"(WHERE {sa} IS NOT NULL, or load_adult(..., complete=True)) or fill them first"
        )
    if isinstance(m, int) and not isinstance(m, bool) and m > l:
        raise SqlanonError(
            f"m = {m} is larger than the number of distinct values ({l}) of column {sa!r} in table {table!r}; "
            f"lower m to at most {l}"
        )
    counts_sql = (
        f"SELECT sa_value, count, row_number() OVER (ORDER BY sa_value) AS i FROM "
        f"(SELECT {quote(sa)} AS sa_value, count(*)::BIGINT AS count FROM {rel} GROUP BY 1)"
    )
    if method in SQL_METHODS and not options:
        _check([1] * l, m)  # m errors with the Python wording
        sql = "SELECT * FROM sqlanon_eligibility_targets(?, ?, ?, method := ?)"
        params = [table, sa, m, method]
    else:
        counts = [r[0] for r in con.execute(f"SELECT count FROM ({counts_sql}) ORDER BY i").fetchall()]
        tg = targets(counts, m, method, **options)
        sql = (
            f"SELECT sa_value, count, t[i] AS target, t[i] - count AS delta "
            f"FROM ({counts_sql}), (SELECT ?::BIGINT[] AS t) ORDER BY i"
        )
        params = [tg]
    if into is not None:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {quote(into)} AS {sql}", params)
        return con.execute(f"SELECT * FROM {quote(into)} ORDER BY sa_value").fetchall()
    return con.execute(sql, params).fetchall()

"""A slow, obvious Mondrian in plain Python: the reference for sqlanon.static.

Recursive, one partition at a time, with the rules docs/static.md states:
codes (a number is itself, a category its rank in sorted order), the widest QI
by normalized width (range / table range, or distinct / table distinct) among
those with an allowable cut, ties to the first QI; on it the most balanced
allowable cut, ties to the smallest value. Strict: x <= v | x > v, both sides
>= k rows and >= l distinct SA values. Relaxed: the rows below the cut value go
left and the rows equal to it are dealt in tie order, by (QI codes in QI order, SA
value, row index), until the left side holds n // 2 rows. With t (strict), both sides' SA distributions
are within EMD t - 1e-9 (equal ground distance) of the table's; with
diversity "entropy" / "recursive" both sides are entropy l-diverse / recursive
(c, l)-diverse instead of having l distinct values. Returns the final partitions as lists of
row indexes (0-based, in input order).
"""

from __future__ import annotations

import math


def _emd(side, q):
    """Equal-distance EMD between the SA distribution of ``side`` and ``q``."""
    n = len(side)
    cnt = {}
    for s in side:
        cnt[s] = cnt.get(s, 0) + 1
    return 0.5 * sum(abs(cnt.get(s, 0) / n - qs) for s, qs in q.items())


def _diverse(side, l, diversity, c):
    """Entropy l-diversity (exp(entropy) >= l, up to 1e-12 in ln) or recursive
    (c, l)-diversity (r1 < c * (r_l + ...)) of the SA values in ``side``."""
    cnt = {}
    for s in side:
        cnt[s] = cnt.get(s, 0) + 1
    r = sorted(cnt.values(), reverse=True)
    n = len(side)
    if diversity == "entropy":
        return -sum(x / n * math.log(x / n) for x in r) >= math.log(l) - 1e-12
    return len(r) >= l and r[0] < c * sum(r[l - 1:])


def mondrian(rows, numeric, k, l=None, strict=True, sa=None, t=None, diversity="distinct", c=None):
    """rows: list of tuples of QI values; numeric: list of bools per QI;
    sa: list of SA values (needed with l)."""
    q = len(numeric)
    codes = []
    for d in range(q):
        if numeric[d]:
            codes.append([float(r[d]) for r in rows])
        else:
            order = {v: i for i, v in enumerate(sorted({str(r[d]) for r in rows}))}
            codes.append([float(order[str(r[d])]) for r in rows])
    dom_range = [max(col) - min(col) if col else 0 for col in codes]
    dom_nd = [len(set(col)) for col in codes]
    out = []
    dist = {}
    if t is not None:
        for s in sa:
            dist[s] = dist.get(s, 0) + 1 / len(sa)

    def split(part):
        n = len(part)
        best = None  # (key, dim, v, take)
        for d in range(q):
            xs = sorted(codes[d][i] for i in part)
            values = sorted(set(xs))
            if len(values) < 2:
                continue
            width = len(values) / dom_nd[d] if not numeric[d] else (values[-1] - values[0]) / dom_range[d]
            if l is not None and diversity == "distinct":
                mins, maxs = {}, {}
                for i in part:
                    s = sa[i]
                    mins[s] = min(mins.get(s, codes[d][i]), codes[d][i])
                    maxs[s] = max(maxs.get(s, codes[d][i]), codes[d][i])
                lo = sorted(mins.values())[l - 1]
                hi = sorted(maxs.values(), reverse=True)[l - 1]
            cands = []
            for v in values:
                cum = sum(1 for x in xs if x <= v)
                ties = sum(1 for x in xs if x == v)
                if strict:
                    ok = cum >= k and n - cum >= k and (l is None or diversity != "distinct" or lo <= v < hi)
                    left = [sa[i] for i in part if codes[d][i] <= v]
                    right = [sa[i] for i in part if codes[d][i] > v]
                    if ok and t is not None:
                        ok = _emd(left, dist) <= t - 1e-9 and _emd(right, dist) <= t - 1e-9
                    if ok and l is not None and diversity != "distinct":
                        ok = _diverse(left, l, diversity, c) and _diverse(right, l, diversity, c)
                    take = None
                else:
                    ok = n >= 2 * k and cum - ties < n // 2 <= cum
                    take = n // 2 - (cum - ties)
                if ok:
                    cands.append((abs(2 * cum - n), v, take))
            if not cands:
                continue
            bal, v, take = min(cands)
            key = (-width, d, bal, v)
            if best is None or key < best[0]:
                best = (key, d, v, take)
        if best is None:
            out.append(sorted(part))
            return
        _, d, v, take = best
        if strict:
            left = [i for i in part if codes[d][i] <= v]
        else:
            ties = sorted((i for i in part if codes[d][i] == v),
                          key=lambda i: (tuple(codes[e][i] for e in range(q)), () if sa is None else (sa[i],), i))
            left = [i for i in part if codes[d][i] < v] + ties[:take]
        lset = set(left)
        split(sorted(left))
        split(sorted(i for i in part if i not in lset))

    if rows:
        split(list(range(len(rows))))
    return out

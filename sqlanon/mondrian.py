"""Mondrian's partition tree, vectorized with numpy (docs/static.md, "What runs where").

The input is one integer array per QI: each row's *dense rank* among the QI's
distinct codes (so comparisons are those of the codes), plus the data the width
needs (a numeric QI's distinct values, the table's range and distinct counts)
and, with l or t, each row's SA code. The output is each row's partition id.
Nothing here touches the database: ``sqlanon.static`` reads the codes from
DuckDB in one pass, calls :func:`partition`, writes the ids back and checks the
published table with the SQL check macros before it commits.

The tree is built one *level* at a time, every open partition at once: rows
are kept grouped by partition (each partition a contiguous segment, its rows in
row-id order), and each level is a handful of whole-array operations
(``reduceat`` per segment, ``bincount`` / ``unique`` histograms of (segment,
value)), never a Python loop over partitions. The rules are those of the SQL
version it replaces and of ``tests/mondrian_reference.py``: the widest unmasked
QI (ties to the first), on it the most balanced allowable cut (ties to the
smaller value); a partition without one masks that QI and tries the next widest
at the next level; halves get ids ``nxt + 2j`` and ``nxt + 2j + 1`` in the order
of their parent's id, so the ids (and the published classes) are those the SQL
levels gave.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

_BIG = np.iinfo(np.int64).max
# cells of a dense (segment x value) histogram, or of a (candidate cut x SA value)
# grid, allowed per row of the level (above it the sparse / chunked way is taken)
_DENSE_PER_ROW = 4
_GRID_CELLS = 1 << 22


@dataclass
class Dims:
    """The QIs in rank form. ``ranks[d]`` holds each row's dense rank on QI d;
    ``values[d]`` a numeric QI's distinct values in rank order (None for a
    category); ``range_[d]`` / ``nd[d]`` the table's range / distinct count."""

    ranks: np.ndarray           # (q, n) int32
    values: list                # per QI: float64 array (numeric) or None (categorical)
    range_: list                # per QI: max - min over the table (numeric)
    nd: list                    # per QI: distinct values over the table


def dense_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ranks int32, distinct values sorted) of a float64 array."""
    if x.size and np.all(np.isfinite(x)):
        lo, hi = x.min(), x.max()
        if hi - lo <= 4 * x.size + 1024 and np.array_equal(x, np.floor(x)):  # small integral span: no sort
            off = (x - lo).astype(np.int64)
            present = np.zeros(int(hi - lo) + 1, dtype=bool)
            present[off] = True
            rank_of = np.cumsum(present) - 1
            return rank_of[off].astype(np.int32), (np.flatnonzero(present) + lo).astype(np.float64)
    values, inv = np.unique(x, return_inverse=True)
    return inv.astype(np.int32).reshape(-1), values


def qi_tuples(dims: Dims, weights: np.ndarray):
    """The distinct QI tuples of the rows (each row an atom standing for ``weights`` rows):
    (Dims of the tuples, in the order of their first row; each tuple's rows; each row's tuple),
    or None when a tuple's mixed-radix key would not fit an int64. Strict Mondrian without l
    or t reads no SA: every test of a cut reads counts and sets of QI values, so the tuples,
    each weighted by its rows, get exactly the partition ids their atoms would get (Adult:
    11,089 tuples for 18,109 atoms; issue 35, eighth round)."""
    q, n = dims.ranks.shape
    if q == 0 or n == 0 or math.prod(int(x) for x in dims.nd) >= 2 ** 62:
        return None
    key = dims.ranks[0].astype(np.int64)
    radix = int(dims.nd[0])
    for d in range(1, q):
        key += dims.ranks[d].astype(np.int64) * radix
        radix *= int(dims.nd[d])
    of_row, uniq = pd.factorize(key)  # (a hash table: no sort)
    m = uniq.size
    first = np.empty(m, dtype=np.int64)
    first[of_row[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)  # each tuple's first row
    rows = np.bincount(of_row, weights=weights, minlength=m).astype(np.int64)
    return Dims(np.ascontiguousarray(dims.ranks[:, first]), dims.values, dims.range_, dims.nd), rows, of_row


def _seg_exclusive_cumsum(flags: np.ndarray, starts: np.ndarray, seg: np.ndarray, dtype=None) -> np.ndarray:
    """Per element, the sum of the earlier elements of its segment (flags: how many are set)."""
    cs = np.cumsum(flags, dtype=dtype or (np.int64 if flags.size >= 2 ** 31 else np.int32))
    before = np.where(starts > 0, cs[starts - 1], 0)
    return cs - flags - before[seg]


def partition(dims: Dims, k: int, *, strict: bool = True, sa: np.ndarray | None = None, l: int | None = None,
              diversity: str = "distinct", c: float | None = None, t: float | None = None,
              weights: np.ndarray | None = None, finals: list | None = None) -> tuple[np.ndarray, int]:
    """Each row's partition id (int64, rows in input order) and the number of levels.

    ``finals``: a list to which each level appends its final partitions as (their rows,
    grouped by partition; their ids; their row counts; with weights each row's weight there,
    else None): per partition extents by ``reduceat`` without sorting the rows again
    (``sqlanon.static``).

    ``weights``: each row stands for that many equal rows (an *atom*: the source rows
    with one QI tuple and SA value, counted once). A strict cut never separates rows
    with equal QI values, and every test reads counts (sizes, histograms of the cut QI,
    SA counts) or sets of values, so the atoms get the partition ids their rows would
    get, in fewer rows per level. Relaxed Mondrian deals the rows equal to the cut value
    in *tie order*: by their QI codes (lexicographically, in QI order), then SA code, then
    row id; its rows are kept in that order within every segment, so an atom's rows are
    consecutive and a cut splits at most one atom per segment: that atom becomes two
    *pieces* (its first rows left, the rest right, the weight divided). With weights and
    relaxed, an atom may end in several partitions: the ids are in ``finals`` (a piece per
    entry, with its weight), and the returned per-row ids are not meaningful."""
    ranks = dims.ranks
    q, n = ranks.shape
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out, 0
    wo = None if weights is None else np.asarray(weights, dtype=np.int64)  # weights of the active rows
    numeric = [v is not None for v in dims.values]
    vmax = int(ranks.max()) + 1 if n else 1
    use_grid = t is not None or (l is not None and diversity != "distinct")
    use_l = l is not None and diversity == "distinct"
    n_sa = int(sa.max()) + 1 if sa is not None and n else 0
    total = n if wo is None else int(wo.sum())
    qdist = np.bincount(sa, weights=wo, minlength=n_sa) / total if t is not None else None

    # a category of <= 62 values: its distinct values per segment as the bits of an OR, in the
    # narrowest unsigned integer that holds them (less memory to move per level)
    small = [_bit_table(int(dims.nd[d])) if not numeric[d] and dims.nd[d] <= 62 else None for d in range(q)]
    order = np.arange(n, dtype=np.int64)      # active rows, grouped by segment
    if not strict:  # relaxed: rows in tie order, (QI codes, SA code, row id), kept within every segment
        order = np.lexsort(([] if sa is None else [sa]) + [ranks[d] for d in range(q - 1, -1, -1)])
    # the ranks of the active rows, same order, row-major (int16 when they fit), each row padded to whole
    # 8-byte words: the rows move by one take of int64 words along axis 0 (a take along axis 1 of
    # (q, n) int16 cost 3-7x as much at Adult's 18,109 atoms); a QI is a strided column (a transposed
    # copy a level to read each QI contiguously was slower, measured); the picked QI's value is one gather
    rank_type = np.int16 if vmax <= np.iinfo(np.int16).max else np.int32
    xo = _row_words(ranks, rank_type)
    so = sa if use_l or use_grid else None    # SA codes of the active rows (when a test reads them)
    if not strict:
        xo = np.take(xo, order, axis=0)
        so = None if so is None else np.take(so, order)
        wo = None if wo is None else np.take(wo, order)
    lens = np.array([n], dtype=np.int64)      # per segment: rows
    pids = np.zeros(1, dtype=np.int64)        # per segment: partition id
    masks = np.zeros(1, dtype=np.int64)       # per segment: QIs with no allowable cut (bits)
    nxt = 1
    small_qis = [d for d in range(q) if small[d] is not None]
    small_pos = {d: j for j, d in enumerate(small_qis)}
    qbits = np.arange(q, dtype=np.int64)[:, None]
    # a QI can be cut in a segment when its extent exceeds this (a number: a range > 0; a category:
    # two values or more); its width is the extent over the table's (range, or distinct values)
    cut_floor = np.array([0.0 if numeric[d] else 1.0 for d in range(q)])[:, None]
    denom = np.array([(dims.range_[d] or 1.0) if numeric[d] else dims.nd[d] for d in range(q)],
                     dtype=np.float64)[:, None]
    levels = 0
    while lens.size:
        levels += 1
        starts = _starts(lens)
        P = lens.size
        # 1. widths of every QI per segment; pick the widest unmasked
        # (per QI its extent: a number's range, a category's distinct values; the few whole-(q x P)
        # operations after the loop, not per QI: a level's cost is mostly the number of numpy calls)
        xq = xo.view(rank_type)  # (n_active, padded q) ranks
        ext = np.empty((q, P))
        ors = np.empty((len(small_qis), P), dtype=np.uint64) if small_qis else None
        for d in range(q):
            col = xq[:, d]
            if numeric[d]:
                vals = dims.values[d]
                ext[d] = vals[np.maximum.reduceat(col, starts)] - vals[np.minimum.reduceat(col, starts)]
            elif small[d] is not None:  # 2^x by a shift (no gather), OR per segment; popcount below
                ors[small_pos[d]] = np.bitwise_or.reduceat(
                    np.left_shift(small[d][0], col, dtype=small[d].dtype, casting="unsafe"), starts)
            else:
                ext[d] = _distinct_per_segment(col, starts, lens, None)
        if small_qis:
            ext[small_qis] = _popcount(ors).reshape(ors.shape)
        free = (masks[None, :] >> qbits) & 1 == 0
        w = np.where((ext > cut_floor) & free, ext / denom, -1.0)
        dim = np.argmax(w, axis=0)
        best_w = w[dim, np.arange(P)]
        sizes = lens if wo is None else np.add.reduceat(wo, starts)  # rows per segment
        open_ = (sizes >= 2 * k) & (best_w > 0)
        if not open_.all():  # final segments leave the working set
            fin = ~open_
            fin_rows = np.repeat(fin, lens)
            fin_order = order[fin_rows]
            out[fin_order] = np.repeat(pids[fin], lens[fin])
            if finals is not None:
                finals.append((fin_order, pids[fin], lens[fin], None if wo is None else wo[fin_rows]))
            keep = np.flatnonzero(~fin_rows)  # the rows that stay: one index for every array (a QI row as one item)
            order, xo = np.take(order, keep), np.take(xo, keep, axis=0)
            if so is not None:
                so = np.take(so, keep)
            if wo is not None:
                wo = np.take(wo, keep)
            lens, pids, masks, dim, sizes = lens[open_], pids[open_], masks[open_], dim[open_], sizes[open_]
            if not lens.size:
                break
            P = lens.size
            starts = _starts(lens)
        m = order.size
        # each row's segment: read by distinct l and relaxed ties (the histogram makes it only when sparse)
        seg_of_row = np.repeat(np.arange(P), lens) if use_l or not strict else None
        xq = xo.view(rank_type)
        xv = np.take(xq.reshape(-1), np.repeat(dim, lens) + np.arange(0, m * xq.shape[1], xq.shape[1])).astype(np.int64)
        # 2. the histogram of (segment, value) on the picked QI, in (segment, value) order
        e_seg, e_val, e_cnt, e_first, row_entry = _histogram(seg_of_row, xv, starts, lens, vmax, need_rows=use_grid,
                                                             weights=wo)
        cum = np.cumsum(e_cnt)
        before = np.where(e_first > 0, cum[e_first - 1], 0)
        cum = cum - before[e_seg]                   # rows of the segment with value <= e_val
        n_e = sizes[e_seg]
        if strict:
            ok = (cum >= k) & (n_e - cum >= k)
            if use_l:
                ok &= _distinct_sides_ok(seg_of_row, so, xv, P, n_sa, l, e_seg, e_val, e_first, vmax)
            if use_grid:
                ok &= _grid_ok(ok, row_entry, so, starts, n_sa, e_seg, e_first, cum, n_e, l, diversity, c, t, qdist, wo)
            key = np.where(ok, np.abs(2 * cum - n_e) * vmax + e_val, _BIG)
            bestkey = np.minimum.reduceat(key, e_first)
            has = bestkey < _BIG
            cv = np.where(has, bestkey % vmax, -1)
            take = None
        else:
            half = sizes // 2
            hit = cum >= half[e_seg]
            first_hit = np.minimum.reduceat(np.where(hit, np.arange(e_seg.size), _BIG), e_first)
            has = np.ones(P, dtype=bool)
            cv = e_val[first_hit]
            take = half - (cum[first_hit] - e_cnt[first_hit])
        # 3. cut segments get new ids in the order of their ids; the others mask the QI
        cut_idx = np.flatnonzero(has)
        lid = np.full(P, -1, dtype=np.int64)
        lid[cut_idx[np.argsort(pids[cut_idx])]] = nxt + 2 * np.arange(cut_idx.size)
        nxt += 2 * cut_idx.size
        masks = np.where(has, 0, masks | (np.int64(1) << dim.astype(np.int64)))
        cvr = np.repeat(np.where(has, cv, np.iinfo(np.int64).max), lens)  # an uncut segment: all rows left
        split = None  # relaxed with weights: the atom (piece) that a cut splits, at most one per segment
        if strict:
            left = xv <= cvr
        elif wo is None:
            tie = xv == cvr
            left = (xv < cvr) | (tie & (_seg_exclusive_cumsum(tie, starts, seg_of_row) < np.repeat(take, lens)))
        else:  # the tied rows before a piece (tie order) and the piece's own: all left, all right, or split
            tie = xv == cvr
            tw = np.where(tie, wo, 0)
            before = _seg_exclusive_cumsum(tw, starts, seg_of_row, np.int64)
            take_r = np.repeat(take, lens)
            left = (xv < cvr) | (tie & (before < take_r))
            split = tie & (before < take_r) & (before + wo > take_r)
            w_left = np.where(left, np.where(split, take_r - before, wo), 0)
        right = ~left if split is None else ~left | split  # (a split piece is on both sides)
        # each segment's left rows, then its right rows, each in their order: row j of all left
        # rows goes to j + (right rows of the earlier segments), row j of the right rows to
        # j + (left rows of this and the earlier segments)
        ends = starts + lens - 1
        l_incl = np.cumsum(left, dtype=np.int64 if m >= 2 ** 31 else np.int32)[ends].astype(np.int64)
        n_left = _diff0(l_incl)
        if split is None:
            n_right = lens - n_left
        else:
            n_right = _diff0(np.cumsum(right, dtype=np.int64)[ends])
        idx_l, idx_r = np.flatnonzero(left), np.flatnonzero(right)
        pos_l = np.arange(idx_l.size) + np.repeat(np.cumsum(n_right) - n_right, n_left)
        pos_r = np.arange(idx_r.size) + np.repeat(l_incl, n_right)
        inv = np.empty(idx_l.size + idx_r.size, dtype=np.int64)
        inv[pos_l] = idx_l
        inv[pos_r] = idx_r
        order = np.take(order, inv)
        xo = np.take(xo, inv, axis=0)
        if so is not None:
            so = np.take(so, inv)
        if split is not None:
            w_new = np.empty(inv.size, dtype=np.int64)
            w_new[pos_l] = w_left[idx_l]
            w_new[pos_r] = (wo - w_left)[idx_r]
            wo = w_new
        elif wo is not None:
            wo = np.take(wo, inv)
        # new segment list: a cut segment becomes (left, right), the others stay
        two = has.astype(np.int64) + 1
        rep = np.repeat(np.arange(P), two)
        is_right = np.zeros(rep.size, dtype=bool)
        is_right[np.cumsum(two)[has] - 1] = True
        lens = np.where(is_right, n_right[rep], np.where(has[rep], n_left[rep], lens[rep]))
        pids = np.where(has[rep], lid[rep] + is_right, pids[rep])
        masks = masks[rep]
    return out, levels


def _row_words(ranks: np.ndarray, dtype) -> np.ndarray:
    """(q, n) ranks as an (n, w) int64 array: row i holds row i's q ranks as ``dtype``, padded with
    zeros to whole 8-byte words (``.view(dtype)`` gives them back as (n, padded q) columns)."""
    q, n = ranks.shape
    per = 8 // np.dtype(dtype).itemsize
    rows = np.zeros((n, -(-q // per) * per), dtype=dtype)
    rows[:, :q] = ranks.T
    return rows.view(np.int64)


def _diff0(x: np.ndarray) -> np.ndarray:
    """``np.diff(x, prepend=0)`` without its broadcasting (a call per level)."""
    d = x.copy()
    d[1:] -= x[:-1]
    return d


def _starts(lens: np.ndarray) -> np.ndarray:
    """Each segment's first row."""
    starts = np.zeros(lens.size, dtype=np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    return starts


_POW2 = np.left_shift(np.int64(1), np.arange(63, dtype=np.int64))


def _bit_table(nd: int) -> np.ndarray:
    """2^v for the values v < nd (<= 62) in the narrowest unsigned type that holds them."""
    dtype = np.uint8 if nd <= 8 else np.uint16 if nd <= 16 else np.uint32 if nd <= 32 else np.uint64
    return _POW2[:nd].astype(dtype)


def _popcount(bits: np.ndarray) -> np.ndarray:
    """Set bits per element (numpy >= 2.0 has it built in; the package allows 1.26)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(bits)
    return np.unpackbits(np.ascontiguousarray(bits.astype(np.int64)).view(np.uint8)).reshape(-1, 64).sum(axis=1)


def _distinct_per_segment(x: np.ndarray, starts: np.ndarray, lens: np.ndarray, small: np.ndarray | None) -> np.ndarray:
    """Distinct values of x per segment (small: the bit table of a QI of <= 62 values,
    counted as the bits of an OR)."""
    if small is not None:  # 2^x by a shift (no gather)
        bits = np.left_shift(small[0], x, dtype=small.dtype, casting="unsafe")
        return _popcount(np.bitwise_or.reduceat(bits, starts)).astype(np.float64)
    v = int(x.max()) + 1
    seg = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    u = np.unique(seg * v + x)
    return np.bincount(u // v, minlength=lens.size).astype(np.float64)


def _histogram(seg, xv, starts, lens, vmax, need_rows, weights=None):
    """Entries (segment, value, count) sorted by (segment, value), each segment's
    first entry, and (when need_rows) each row's entry index; a row counts
    ``weights[row]`` times when weights are given. Dense: one bin per value between
    the segment's lowest and highest value (``bincount``); else sorted keys (``seg``: each
    row's segment, or None: then made here, the dense way does not read it)."""
    P = lens.size
    lo = np.minimum.reduceat(xv, starts)
    span = np.maximum.reduceat(xv, starts) - lo + 1
    bins = int(span.sum())
    if bins <= _DENSE_PER_ROW * xv.size + 4096:
        shift = np.cumsum(span) - span - lo      # a segment's first bin, less its lowest value
        key = np.repeat(shift, lens) + xv
        # (weights are >= 1: the weighted counts are nonzero where the rows are; one bincount)
        cnt = np.bincount(key, weights=weights, minlength=bins)
        nz = np.flatnonzero(cnt)
        row_entry = (np.cumsum(cnt > 0) - 1)[key] if need_rows else None
        e_cnt = cnt[nz]
        e_seg = np.repeat(np.arange(P), span)[nz]
        e_val = nz - shift[e_seg]
        e_first = np.flatnonzero(np.concatenate(([True], e_seg[1:] != e_seg[:-1])))
        return e_seg, e_val, e_cnt.astype(np.int64), e_first, row_entry
    if seg is None:
        seg = np.repeat(np.arange(P), lens)
    key = seg.astype(np.int64) * vmax + xv
    if need_rows or weights is not None:
        keys, row_entry, e_cnt = np.unique(key, return_inverse=True, return_counts=True)
        row_entry = row_entry.reshape(-1)
        if weights is not None:
            e_cnt = np.bincount(row_entry, weights=weights, minlength=keys.size)
        if not need_rows:
            row_entry = None
    else:
        keys, e_cnt = np.unique(key, return_counts=True)
        row_entry = None
    e_seg, e_val = keys // vmax, keys % vmax
    e_first = np.flatnonzero(np.concatenate(([True], e_seg[1:] != e_seg[:-1])))
    return e_seg, e_val, e_cnt.astype(np.int64), e_first, row_entry


def _distinct_sides_ok(seg, sa, xv, P, n_sa, l, e_seg, e_val, e_first, vmax):
    """Distinct l-diversity of both sides of every candidate cut: the left side of a
    cut at v holds SA value s iff s's smallest value in the segment is <= v; the right
    side iff its largest is > v."""
    cell = seg.astype(np.int64) * n_sa + sa
    if P * n_sa <= _DENSE_PER_ROW * seg.size + 4096:
        mn = np.full(P * n_sa, _BIG, dtype=np.int64)
        mx = np.full(P * n_sa, -1, dtype=np.int64)
        np.minimum.at(mn, cell, xv)
        np.maximum.at(mx, cell, xv)
        present = mx >= 0
        c_seg = np.flatnonzero(present) // n_sa
        mn, mx = mn[present], mx[present]
    else:
        u = np.unique(cell * vmax + xv)
        g = u // vmax
        first = np.concatenate(([True], g[1:] != g[:-1]))
        last = np.concatenate((g[1:] != g[:-1], [True]))
        c_seg, mn, mx = g[first] // n_sa, (u % vmax)[first], (u % vmax)[last]
    ekey = e_seg * vmax + e_val
    n_ent = e_seg.size
    # per entry: how many SA values have their minimum at this (segment, value), and their maximum
    at_min = np.bincount(np.searchsorted(ekey, c_seg * vmax + mn), minlength=n_ent)
    at_max = np.bincount(np.searchsorted(ekey, c_seg * vmax + mx), minlength=n_ent)
    left_d = np.cumsum(at_min)
    left_d -= np.where(e_first > 0, left_d[e_first - 1], 0)[e_seg]
    upto_max = np.cumsum(at_max)
    upto_max -= np.where(e_first > 0, upto_max[e_first - 1], 0)[e_seg]
    total = np.bincount(c_seg, minlength=P)[e_seg]
    return (left_d >= l) & (total - upto_max >= l)


def _grid_ok(cand, row_entry, sa, starts, n_sa, e_seg, e_first, cum, n_e, l, diversity, c, t, qdist, weights=None):
    """Entropy / recursive (c, l)-diversity and t-closeness (equal distance) of both
    sides of every candidate cut, from the (candidate cut x SA value) counts; done in
    chunks of whole segments so that the grid stays under _GRID_CELLS cells."""
    n_ent = e_seg.size
    ok = np.zeros(n_ent, dtype=bool)
    bounds = np.concatenate((e_first, [n_ent]))
    step = max(1, _GRID_CELLS // max(n_sa, 1))
    row_bounds = np.concatenate((starts, [row_entry.size]))  # a segment's rows are contiguous
    i = 0
    nseg = e_first.size
    while i < nseg:
        a = bounds[i]
        j = int(np.searchsorted(bounds, a + step, side="right")) - 1
        j = max(j, i + 1)
        b = bounds[j]
        r0, r1 = row_bounds[i], row_bounds[j]
        cells = (row_entry[r0:r1] - a) * n_sa + sa[r0:r1]
        g = np.bincount(cells, weights=None if weights is None else weights[r0:r1],
                        minlength=(b - a) * n_sa).reshape(b - a, n_sa)
        csum = np.cumsum(g, axis=0)
        seg_local = e_seg[a:b] - e_seg[a]
        firsts = bounds[i:j] - a
        lasts = bounds[i + 1:j + 1] - a - 1
        base = np.where(firsts[:, None] > 0, csum[np.maximum(firsts - 1, 0)], 0)
        left = csum - base[seg_local]
        right = (csum[lasts] - base)[seg_local] - left
        nl = cum[a:b].astype(np.float64)[:, None]
        nr = (n_e[a:b] - cum[a:b]).astype(np.float64)[:, None]
        good = cand[a:b].copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            if t is not None:
                good &= 0.5 * np.abs(left / nl - qdist).sum(axis=1) <= t - 1e-9
                good &= 0.5 * np.abs(right / nr - qdist).sum(axis=1) <= t - 1e-9
            if l is not None and diversity == "entropy":
                for side, nn in ((left, nl), (right, nr)):
                    p = side / nn
                    h = -np.where(side > 0, p * np.log(np.where(side > 0, p, 1.0)), 0.0).sum(axis=1)
                    good &= h >= np.log(l) - 1e-12
            if l is not None and diversity == "recursive":
                for side in (left, right):
                    r = -np.sort(-side, axis=1)
                    good &= ((side > 0).sum(axis=1) >= l) & (r[:, 0] < c * r[:, l - 1:].sum(axis=1))
        ok[a:b] = good
        i = j
    return ok

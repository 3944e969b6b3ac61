"""The published cells and groups of static Mondrian's classes, in numpy (docs/static.md,
"What runs where"): a category's set cells from its values as bits, an integer number's
'[lo-hi]' cells, NCP from the class extents, the published groups (classes with equal cells)
and the largest EMD of their SA distributions; a read column's codes by sort order
(``_sorted_codes``, Arrow). Used by ``sqlanon.static``; nothing here touches the database."""

from __future__ import annotations

import numpy as np
import pandas as pd
try:  # (not a dependency of the package: sqlanon.static reads with SQL dictionaries without it)
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:  # pragma: no cover
    pa = pc = None

from . import mondrian


def _set_cells(bits: np.ndarray, values: list) -> tuple[np.ndarray, np.ndarray, list]:
    """A category's published cell per class from its codes as bits: the value itself
    when it is one, else ``'{a,b,c}'``, the values in code order (their sort order)
    joined by ``,``. Built once per distinct set (a few hundred), not per class. Returns
    (the cell per class, each class's code, the distinct cells: distinct sets, distinct texts)."""
    sets, inv = np.unique(bits, return_inverse=True)
    cells = []
    for s in sets.tolist():
        present = []
        while s:  # the set bits, lowest first (code order), not every value's bit
            low = s & -s
            present.append(values[low.bit_length() - 1])
            s ^= low
        cells.append(present[0] if len(present) == 1 else "{" + ",".join(present) + "}")
    inv = inv.reshape(-1)
    return np.asarray(cells, dtype=object)[inv], inv, cells


def _int_cells(lo: np.ndarray, hi: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, list]:
    """A number's published cell per class from its lowest and highest rank (``values``: the
    distinct values by rank, integers exact as DOUBLE): the value when they are equal, else
    ``'[lo-hi]'``, as 03_publish's ``lo::<integer type>::VARCHAR`` writes it (an integer's text
    is its decimal digits, a minus sign when negative). Built once per distinct extent. Returns
    (each class's code, the distinct cells)."""
    v = int(values.size)
    sets, inv = np.unique(lo.astype(np.int64) * v + hi, return_inverse=True)
    los, his = values[sets // v].tolist(), values[sets % v].tolist()
    cells = [str(int(a)) if a == b else f"[{int(a)}-{int(b)}]" for a, b in zip(los, his)]
    return inv.reshape(-1), cells


def _distinct_cells(codes: np.ndarray, cells: list) -> tuple[np.ndarray, list]:
    """(each class's code, the cells) with equal texts given one code: two distinct sets of values
    can print alike (a value ``'{a,b}'`` and the set of ``a`` and ``b``), and a published group is
    the rows with equal texts, so the codes that stand for the cells must be one per text."""
    merged = dict.fromkeys(cells)
    if len(merged) == len(cells):
        return codes, cells
    first: dict = {}
    remap = np.array([first.setdefault(x, len(first)) for x in cells], dtype=np.int64)
    return remap[codes], list(first)


def _ncp_of_classes(stats: dict, dims, spec) -> list:
    """Per QI the NCP in % from the class extents: 03_publish's last statement (``sqlanon__ncp_penalty``
    per class and QI, weighted by the class's rows) in numpy, equal up to the order of a float sum."""
    n = stats["n"].astype(np.float64)
    total = n.sum()
    per = []
    for c in spec:
        i = c["i"]
        if c["numeric"]:
            whole = float(dims.range_[i])
            p = (stats[f"hi{i}"] - stats[f"lo{i}"]) / whole if whole else np.zeros(n.size)
        else:
            nd = mondrian._popcount(stats[f"bits{i}"]).astype(np.float64)
            whole = float(dims.nd[i])
            p = np.where(nd <= 1, 0.0, nd / whole) if whole else np.zeros(n.size)
        per.append(float(100.0 * np.cumsum(n * p)[-1] / total) if total else 0.0)  # (a sum in class order, as SQL's)
    return per


def _group_of_class(cells: np.ndarray) -> np.ndarray:
    """Each class's published group (0..): ``cells`` holds per class its published cells (codes, one
    column per QI); classes with equal cells are one group."""
    radix = cells.max(axis=0).astype(np.int64) + 1 if cells.size else np.ones(cells.shape[1], dtype=np.int64)
    if float(np.prod(radix.astype(np.float64))) < 2.0 ** 62:  # the cells as one integer, grouped by hashing
        return pd.factorize(cells.astype(np.int64) @ np.cumprod(np.concatenate(([1], radix[:-1]))))[0]
    return np.unique(cells, axis=0, return_inverse=True)[1].reshape(-1)


def _published_groups(n: np.ndarray, factors: dict, spec) -> tuple[int, int, int]:
    """(discernibility, published groups, rows) from the classes: a published group is the classes
    with equal cells (``factors``: per QI each class's cell code), its size their rows ``n``."""
    group = _group_of_class(np.stack([factors[c["i"]][0] for c in spec], axis=1))
    size = np.bincount(group, weights=n).astype(np.int64)
    return int((size.astype(object) ** 2).sum()), int(size.size), int(size.sum())


def _largest_emd(cells: np.ndarray, cls: np.ndarray, sc: np.ndarray, reps: np.ndarray, n_sc: int) -> float:
    """The largest equal-distance EMD between a published group's SA distribution and the
    table's (what ``sqlanon_t_closeness(..., false)`` reports, up to float rounding): ``cells``
    holds per class its published cells (codes, one column per QI); a published group is the
    classes with equal cells; (``cls``, ``sc``, ``reps``): per (class, SA code) its rows.
    EMD = 1/2 sum over SA values |p - q| = 1/2 (sum over the group's values |p - q| + 1 - their q)."""
    group_of_class = _group_of_class(cells)
    key = group_of_class[cls].astype(np.int64) * n_sc + sc
    bins = (int(group_of_class.max()) + 1) * n_sc if key.size else 0
    if bins <= 4 * key.size + 4096:  # (group, SA) counts in key order: no sort
        cnt = np.bincount(key, weights=reps, minlength=bins)
        u = np.flatnonzero(cnt)
        cnt = cnt[u]
    else:
        u, inv = np.unique(key, return_inverse=True)
        cnt = np.bincount(inv.reshape(-1), weights=reps)
    g, s = u // n_sc, u % n_sc
    size = np.bincount(g, weights=cnt)
    q = np.bincount(sc, weights=reps, minlength=n_sc) / reps.sum()
    emd = 0.5 * (np.bincount(g, weights=np.abs(cnt / size[g] - q[s])) + 1.0 - np.bincount(g, weights=q[s]))
    return float(emd[size > 0].max())  # (a group id without rows: none when every class has rows)


def _sorted_codes(col, order_by=None) -> tuple[np.ndarray, object]:
    """Each element's rank among the column's distinct values (int64) and those values in rank
    order: sorted by ``order_by`` (a value's native form, e.g. a number for its text) when
    given, else by the values themselves (text: byte order, DuckDB's VARCHAR order)."""
    enc = pc.dictionary_encode(col)  # a chunked column: one dictionary for all chunks (checked)
    chunks = enc.chunks if isinstance(enc, pa.ChunkedArray) else [enc]
    if not chunks or any(not ch.dictionary.equals(chunks[-1].dictionary) for ch in chunks):
        chunks = [pc.dictionary_encode(col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col)]
    idx = np.concatenate([ch.indices.to_numpy(zero_copy_only=False) for ch in chunks]).astype(np.int64, copy=False)
    dic = chunks[-1].dictionary
    key = dic
    if order_by is not None:  # each value's native form, from its first row
        _, first = np.unique(idx, return_index=True)
        key = order_by.take(pa.array(first))
    order = pc.sort_indices(key).to_numpy()
    rank = np.empty(len(dic), dtype=np.int64)
    rank[order] = np.arange(len(dic))
    return rank[idx], dic.take(pa.array(order))

"""The published rows of static Mondrian as two registered frames (docs/static.md, "What runs
where": output groups): the groups the check macros read and the rows the published table copies,
and the largest EMD of the published groups. Used by ``sqlanon.static``; only the constructor of
:class:`_Output` reads the database (the cells of a class table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
try:  # (not a dependency of the package: pandas frames without it)
    import pyarrow as pa
except ImportError:  # pragma: no cover
    pa = None

from .publisher import SINGLE_THREAD_ROWS
from .static_cells import _largest_emd

if TYPE_CHECKING:
    from .static import _Job


class _Output:
    """The published rows as *groups*: one row per (class, SA value), in storage order
    (class, then SA code), with its number of rows ``sqlanon__n`` (an atom counts
    ``weights`` rows). Two frames of them:

    * the groups (:meth:`groups`), ``sqlanon__mdr_grp``, what the check macros read: per QI
      the class's published cell as an integer code (read from ``sqlanon__mdr_cls``, one row
      per class, or built by ``_class_stats``), the SA value's code, the class number and
      ``sqlanon__n``;
    * the rows (:meth:`rows`), ``sqlanon__mdr_rows``, what the published table copies
      (03_publish, one ``CREATE TABLE ... AS`` with casts): each group repeated ``sqlanon__n``
      times (here, by one ``np.repeat`` of the group index), each QI and the SA as the same
      codes with the texts as a dictionary (an Arrow dictionary array, or a pandas categorical
      without pyarrow).

    A column's texts are distinct (``_distinct_cells``), so grouping by the codes groups the
    published rows exactly (docs/static.md). Rows of one class and SA value are equal in the
    published table, so the row order within a group is no information. When the groups are more than
    half as many as the rows (relaxed Mondrian's small classes), the groups frame holds the rows,
    one each, without ``sqlanon__n`` (``grouped`` false).
    ``known``: per QI (index) whose cells ``_class_stats`` built, (each class's code, the distinct
    cells): those are not read back from ``sqlanon__mdr_cls`` (only the constructor reads ``con``).
    Sets ``job.ctx["grouped"]`` and ``job.ctx["rows_grouped"]``."""

    def __init__(self, con, job: _Job, cls_of_row: np.ndarray, sc: np.ndarray | None, weights=None, sa_texts=None,
                 known=None) -> None:
        n_sc = 1 if sc is None else int(sc.max()) + 1
        key = cls_of_row if sc is None else cls_of_row * n_sc + sc
        bins = (int(cls_of_row.max()) + 1) * n_sc
        if bins <= 4 * key.size + 4096:  # (class, SA) counts in key order: no sort
            reps = np.bincount(key, weights=weights, minlength=bins)
            keys = np.flatnonzero(reps)
            reps = reps[keys].astype(np.int64)
        else:
            keys, inv = np.unique(key, return_inverse=True)
            reps = np.bincount(inv.reshape(-1), weights=weights, minlength=keys.size).astype(np.int64)
        known = known or {}
        read = [col for col in job.spec if col["i"] not in known]  # the other cells, from the class table
        cells = con.execute("SELECT * EXCLUDE (sqlanon__eq) FROM (SELECT sqlanon__eq, "
                            + ", ".join(f"sqlanon__g{col['i']}" for col in read)
                            + " FROM sqlanon__mdr_cls ORDER BY sqlanon__eq)").fetchnumpy() if read else {}
        self.factors = [known[col["i"]] if col["i"] in known else
                        pd.factorize(np.asarray(cells[f"sqlanon__g{col['i']}"], dtype=object)) for col in job.spec]
        n_all = int(reps.sum())
        self.grouped = grouped = 2 * keys.size <= n_all
        # (not grouped: each group repeated, one row each, in the groups frame too)
        g_keys = keys if grouped else np.repeat(keys, reps)
        cls = g_keys // n_sc
        columns = [(job.qi[col["i"]], codes, uniques, cls) for col, (codes, uniques) in zip(job.spec, self.factors)]
        if sc is not None:
            values = sa_texts if sa_texts is not None else \
                con.execute("SELECT list(v::VARCHAR ORDER BY sc) FROM sqlanon__mdr_sdict").fetchall()[0][0]
            columns.append((job.sa, np.arange(len(values)), values, g_keys % n_sc))
        job.ctx["grouped"] = grouped
        job.ctx["rows_grouped"] = self.rows_grouped = grouped and n_all >= SINGLE_THREAD_ROWS  # (03_publish's unnest)
        self.codes = {name: np.asarray(codes).astype(np.int32, copy=False)[of_group]
                      for name, codes, _, of_group in columns}
        self.texts = {name: texts for name, _, texts, _ in columns}
        self.eq, self.eq_class = cls + 1, job.eq_class
        self.keys, self.reps, self.n_sc = keys, reps, n_sc
        self.with_emd = sc is not None and job.t is None  # (t requested: sqlanon_t_closeness computes it, _guarantee)

    def groups(self):
        groups = dict(self.codes)
        groups[self.eq_class] = self.eq
        groups.update({"sqlanon__n": self.reps} if self.grouped else {})
        return pd.DataFrame(groups, copy=False) if pa is None else pa.table(groups)

    def rows(self):
        at = np.repeat(np.arange(self.keys.size), self.reps) if self.grouped and not self.rows_grouped else None
        rows = {name: _dictionary(code if at is None else code[at], self.texts[name]) for name, code in self.codes.items()}
        rows[self.eq_class] = self.eq if at is None else self.eq[at]
        rows.update({"sqlanon__n": self.reps} if self.rows_grouped else {})
        return pd.DataFrame(rows, copy=False) if pa is None else pa.table(rows)

    def emd(self) -> float | None:
        """The published groups' largest EMD (equal distance) when there is an SA and t was not requested."""
        if not self.with_emd:
            return None
        return _largest_emd(np.stack([codes for codes, _ in self.factors], axis=1), self.keys // self.n_sc,
                            self.keys % self.n_sc, self.reps, self.n_sc)


def _dictionary(codes: np.ndarray, texts):
    """Texts by their codes: an Arrow dictionary array (DuckDB reads VARCHAR), else a pandas categorical."""
    if pa is None:
        return pd.Categorical.from_codes(codes, categories=pd.Index(texts, dtype=object))
    return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), pa.array(list(texts), pa.string()))

"""Static anonymization: Mondrian k-anonymity (optionally distinct, entropy or
recursive l-diversity, t-closeness) (seed 002; docs/static.md).

What runs where (docs/static.md): DuckDB reads the atoms (or rows) in one statement
to Arrow, where the categories are coded and the data checked (``_read_arrow``; kept
columns, hierarchies and collations: DuckDB codes the QIs, ``sql/mondrian/01_prepare``),
numpy builds the partition tree over the codes read in one pass
(``sqlanon/mondrian.py``) and each class's extent, DuckDB reads them back as
registered DataFrames and builds the class table (``03_publish``); numpy puts the
rows in their storage order and DuckDB copies them into the published table in one
scan; the same macros a user would run (``sqlanon_profile``, ``sqlanon_t_closeness``,
...) check the frame the table copies (``_verify`` says why that is the same check)
before the one transaction commits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import duckdb
import numpy as np
import pandas as pd
try:  # the Arrow read (not a dependency of the package: without it the SQL dictionaries are used)
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:  # pragma: no cover - pyarrow comes with pandas 3 and the test extras
    pa = pc = None

from . import ident, mondrian, templates
from .errors import EngineError, SqlanonError
from .engine import as_engine
from .publisher import SINGLE_THREAD_ROWS, _Profile, _stmt_label
from .static_cells import (_set_cells, _int_cells, _ncp_of_classes, _published_groups,  # noqa: F401
                           _largest_emd, _distinct_cells, _sorted_codes)
from .static_output import _Output, _dictionary  # noqa: F401
from .static_checks import (_check_params, _check_columns, _qi_spec, _check_data, _check_hierarchy_values,
                            _is_numeric, _judge_data, _guarantee, _meets)
_SETTINGS = "current_setting('preserve_insertion_order'), current_setting('threads')"  # (release_scope's)


@dataclass
class AnonymizeResult:
    """What :func:`anonymize` published and how good it is."""

    table: str                  # the generalized table (QI generalized, SA, eq_class)
    rows: int
    classes: int                # equivalence classes (Mondrian partitions)
    k: int                      # smallest published QI group (sqlanon_profile / sqlanon_k_anonymity)
    distinct_l: int | None      # smallest distinct SA count of a published group (None without sa)
    entropy_l: float | None
    t: float | None             # largest EMD of a published group's SA distribution (equal distance; None without sa)
    ncp: float                  # % of rows x QIs (sqlanon_ncp over the exact values and eq_class)
    ncp_per_column: dict[str, float]
    discernibility: int         # sum of squared published QI group sizes
    avg_class_size: float       # (rows / published groups) / k requested
    levels: int                 # levels of the partition tree
    seconds: float
    params: dict = field(default_factory=dict)


def anonymize(
    con: duckdb.DuckDBPyConnection,
    source: str,
    *,
    qi: Sequence[str],
    sa: str | None = None,
    k: int,
    l: int | None = None,
    t: float | None = None,
    diversity: str = "distinct",
    c: float | None = None,
    method: str = "mondrian",
    strict: bool = True,
    hierarchies: Mapping[str, str] | None = None,
    output: str | None = None,
    eq_class: str = "eq_class",
    keep: Sequence[str] = (),
) -> AnonymizeResult:
    """Publish a k-anonymous (with ``l``: l-diverse by ``diversity``; with ``t``: t-close,
    equal ground distance) generalization of ``source`` as table ``output`` (default
    ``<source>_anonymized``).

    Mondrian multidimensional partitioning (LeFevre et al. 2006): numeric QIs are
    cut at the median, categorical QIs on their ordered value list (a hierarchy's
    order, published as hierarchy cells, when ``hierarchies`` maps the column to an
    ARX-layout table). ``strict=True`` cuts between values; ``strict=False``
    (relaxed) cuts at the middle row and splits rows equal to the cut value.
    The output holds the ``keep`` columns unchanged (none by default: an id kept
    there is published), the generalized QIs (VARCHAR), ``sa`` and ``eq_class``;
    it is written in one transaction, so on any error nothing is created.
    """
    k, l, t, c = _check_params(method, strict, k, l, t, diversity, c, sa, source)
    if not isinstance(source, str) or not source:
        raise SqlanonError(f"source must be a table name, got {source!r}")
    cols = ident.require_table(con, source)
    qi = ident.require_qi(con, source, qi, cols=cols)
    keep, output = _check_columns(con, source, cols, qi, sa, t, eq_class, keep, output)
    spec = _qi_spec(con, source, cols, qi, hierarchies)
    given = dict(hierarchies or {})
    presorted = not keep and (sa is None or cols[sa] == "VARCHAR" or _is_numeric(cols[sa]))
    atoms = presorted  # Mondrian on the presorted path reads atoms (sql/mondrian/01_prepare)
    # one statement read to Arrow, the categories coded in numpy by their text's byte order (DuckDB's VARCHAR order
    # unless a collation is set: then the dictionaries in SQL) (collation and release settings: one statement; the
    # presorted path counts its rows from the atoms, the other from check_data)
    collation, *settings = con.execute(f"SELECT current_setting('default_collation'), {_SETTINGS}").fetchall()[0]
    n_rows = None
    fast = pa is not None and presorted and not given and not collation

    def check_data(rel: str | None = None) -> int:
        """_check_data on the source, or with atoms on the atoms table (its rows counted by sqlanon__n)."""
        return _check_data(con, source, cols, qi, sa, k, l, diversity, c, rel=rel,
                           weight="sqlanon__n" if rel else None)

    if not (atoms or fast):  # else checked on the atoms or the rows read, inside the transaction (one scan fewer)
        n_rows = check_data()
    job = _Job(source=source, output=output, qi=qi, sa=sa, eq_class=eq_class, spec=spec, k=k, l=l, t=t,
               diversity=diversity, c=c, strict=strict, hierarchies=given,
               ctx={"src": ident.qualified(con, source), "qi": spec, "sa": ident.quote(sa) if sa else None,
                    "keep": [ident.quote(x) for x in keep], "out": ident.quote(output),
                    "eq_col": ident.quote(eq_class), "sa_type": cols[sa] if sa else None,
                    "presorted": presorted, "atoms": atoms, "fast": fast, "grouped": True},
               check_data=check_data)
    return _publish(con, job, n_rows, settings)


@dataclass
class _Job:
    """What :func:`anonymize` validated: the names, the privacy parameters, the template context."""

    source: str
    output: str
    qi: list
    sa: str | None
    eq_class: str
    spec: list
    k: int
    l: int | None
    t: float | None
    diversity: str
    c: float | None
    strict: bool
    hierarchies: dict
    ctx: dict
    check_data: object = None   # _check_data on a relation (with atoms: run on the atoms table)


def _publish(con, job: _Job, n_rows: int | None, settings=None) -> AnonymizeResult:
    """The one transaction of :func:`anonymize`: codes, partition tree, publishing, checks."""
    engine = as_engine(con)
    prof = _Profile()  # per-statement timings, logged at DEBUG by the "sqlanon.profile" logger
    started = time.perf_counter()
    try:
        engine.begin()
    except EngineError as exc:
        raise SqlanonError("the connection has an open transaction; commit or roll it back before anonymize "
                           "(it runs as one transaction of its own)") from exc
    # a small source on one thread (sqlanon.publisher.SINGLE_THREAD_ROWS) unless presorted: its threads kept,
    # its copy written serially (03_publish; a SET threads empties DuckDB's allocator: docs/static.md)
    small = n_rows is not None and n_rows < SINGLE_THREAD_ROWS  # (presorted: n_rows None, counted from the atoms)
    with engine.release_scope(lambda: not small or job.ctx["presorted"], settings):
        steps = _Steps(con, job, prof)
        try:
            dims, sa_codes = steps.codes()
            job.ctx["serial"] = job.ctx["presorted"] and int(steps.weights.sum()) < SINGLE_THREAD_ROWS
            # strict without l or t: the tree on the atoms' distinct QI tuples (mondrian.qi_tuples)
            tuples = mondrian.qi_tuples(dims, steps.weights) if (
                steps.weights is not None and job.strict and job.l is None and job.t is None) else None
            tree_dims, tree_w = (dims, steps.weights) if tuples is None else tuples[:2]
            pid, levels = mondrian.partition(tree_dims, job.k, strict=job.strict, sa=sa_codes if tuples is None else None,
                                             l=job.l, diversity=job.diversity, c=job.c, t=job.t, weights=tree_w,
                                             finals=steps.finals)
            prof.mark(f"partition tree, {levels} levels (numpy)")
            per_list, classes = steps.publish(dims, pid, tuples)
            checked = _verify(con, job, classes, steps.checked_table, steps.emd, steps.counted_table, steps.groups_np,
                              steps.guarantee)
            prof.mark(f"check macros on {steps.counted_table or steps.checked_table}")
            steps.unregister()
            steps.run("09_cleanup")
            engine.commit()
            prof.mark("COMMIT")
        except BaseException:
            try:
                engine.rollback()  # first: nothing else runs in an aborted transaction
            finally:
                steps.unregister()
            raise
    prof.report(f"anonymize {job.source!r} -> {job.output!r}")
    return AnonymizeResult(
        table=job.output, ncp=float(sum(per_list) / len(per_list)),
        ncp_per_column={a: float(b) for a, b in zip(job.qi, per_list)}, levels=levels,
        seconds=time.perf_counter() - started, **checked,
        params={"k": job.k, "l": job.l, "strict": job.strict, "qi": job.qi, "sa": job.sa,
                "hierarchies": job.hierarchies, "t": job.t, "diversity": job.diversity, "c": job.c},
    )


_SAME = {"\0": "\0"}  # templates.render's vary: no placeholder (a NUL is in no template), the cache on


class _Steps:
    """The SQL steps of one :func:`anonymize` call (``sql/mondrian/``) and the
    numpy work between them, on the connection of the open transaction."""

    def __init__(self, con, job: _Job, prof: _Profile) -> None:
        self.con, self.job, self.prof = con, job, prof
        self.env = templates.environment()
        self.codes_by_rid: dict = {}
        self.weights = None  # with atoms: each atom's rows
        self.dict_values: dict = {}  # fast: per category (QI index) its values in code order
        self.sa_texts = None  # fast: the SA values' texts in SA code order
        self.finals: list = []  # the partitioner's final partitions, level by level (mondrian.partition)
        self.frames: dict = {}  # registered DataFrames, by name
        self.factors: dict = {}  # per category with bits: its cells as codes (_class_stats)
        # what the check macros read: the published table, or (presorted) the frame it is a copy of
        self.checked_table = job.output
        self.emd = None  # presorted, without t requested: the published groups' largest EMD (numpy)
        self.counted_table = None  # presorted and grouped, with an SA: the groups' frame (sqlanon__n rows each)
        self.groups_np = None  # without the class table: (discernibility, published groups, rows) from numpy
        self.guarantee = None  # presorted: _guarantee's numbers, the published row count as "published"

    def render(self, name: str) -> list:
        """``sql/mondrian/<name>.sql.j2``'s statements, rendered once per process and context
        (templates.render's cache, keyed by the context's repr; SQL text only, never data)."""
        return templates.render(self.env, f"mondrian/{name}.sql.j2", self.job.ctx, vary=_SAME)

    def run(self, name: str, statements=None, first: int = 1) -> None:
        """Run a template's statements (or the given ones of it, numbered from ``first``)."""
        if statements is None:
            statements = self.render(name)
        for i, stmt in enumerate(statements, first):
            self.con.execute(stmt)
            self.prof.mark(_stmt_label(name, i, stmt))

    def register(self, name: str, frame) -> None:  # (a DataFrame or an Arrow table, until unregister)
        if isinstance(frame, pd.DataFrame):
            # column names as a plain object Index: pandas >= 3 infers an Arrow-backed string Index,
            # whose every lookup (DuckDB's scan looks the columns up one by one) costs ~0.2 ms
            frame.columns = pd.Index(list(frame.columns), dtype=object)
        self.con.register(name, frame)
        self.frames[name] = frame

    def unregister(self) -> None:
        while self.frames:
            self.con.unregister(self.frames.popitem()[0])

    def codes(self):
        """01_prepare: the dictionaries, then the codes read in one pass; (Dims, SA codes)."""
        job = self.job
        *prepare, read = self.render("01_prepare")
        if job.ctx["fast"]:
            table = self.con.sql(read).to_arrow_table()
            self.prof.mark(_stmt_label("01_prepare", 1, read))
            self.codes_by_rid, dims, sa_codes, self.weights, self.dict_values, self.sa_texts = _read_arrow(table, job)
            for col in job.spec:  # a category of more than 62 values: its value list for 03_publish's cells
                if not col["numeric"] and dims.nd[col["i"]] > 62:
                    self.register(f"sqlanon__mdr_dict{col['i']}", pd.DataFrame(
                        {"v": pd.Series(self.dict_values[col["i"]], dtype=object),
                         "code": np.arange(int(dims.nd[col["i"]]), dtype=np.float64)}))
            self.prof.mark("code the rows and check the data (numpy)")
            return dims, sa_codes
        if job.ctx["atoms"]:  # the atoms first, then the data checks on them
            self.run("01_prepare", prepare[:1])
            job.check_data("sqlanon__mdr_atoms")
            self.prof.mark("data checks on the atoms")
            self.run("01_prepare", prepare[1:], first=2)
        else:
            self.run("01_prepare", prepare)
        _check_hierarchy_values(self.con, job.source, job.qi, job.spec)
        self.codes_by_rid, dims, sa_codes, self.weights = _read_codes(self.con, read, job.spec, job.sa is not None,
                                                                      job.ctx["atoms"])
        self.prof.mark("read the codes (numpy)")
        return dims, sa_codes

    def publish(self, dims, pid: np.ndarray, tuples=None):
        """03_publish from the partition ids: the class extents (numpy) go in as registered
        DataFrames; returns (NCP per QI, in %, the number of classes). ``tuples``: the tree ran on
        the QI tuples (``mondrian.qi_tuples``: their Dims, rows, each atom's tuple), ``pid`` theirs."""
        job, con = self.job, self.con
        if self.weights is not None and not job.strict:  # relaxed on atoms: the pieces are the rows from here on
            dims, pid = self._pieces(dims)
        codes = self.codes_by_rid
        codes["pid"] = pid if tuples is None else pid[tuples[2]]
        for col in job.spec:  # categories whose values fit the bits of an int64
            col["bits"] = not col["numeric"] and not col["hier"] and dims.nd[col["i"]] <= 62
            # a number of an integer type whose values are exact as DOUBLE: its cells formatted here
            col["int_cells"] = (col["numeric"] and col["type"] in ident.INTEGER_TYPES
                                and float(np.abs(dims.values[col["i"]]).max(initial=0.0)) < 2.0 ** 53)
        # every cell built in numpy (the Arrow read; categories with bits, integer numbers): no class table,
        # NCP and the published groups from the class extents here
        job.ctx["cls"] = not (job.ctx["fast"] and all(c["bits"] or c["int_cells"] for c in job.spec))
        stats, cls_of_row, factors = _class_stats(con, dims if tuples is None else tuples[0], pid, job.spec,
                                                  self.weights if tuples is None else tuples[1], self.finals,
                                                  self.dict_values, int_cells=not job.ctx["cls"])
        if tuples is not None:  # each atom's class: its tuple's
            cls_of_row = cls_of_row[tuples[2]]
        self.factors = {i: _distinct_cells(*f) for i, f in factors.items()}
        per_list = None
        if job.ctx["cls"]:
            if not job.ctx["presorted"] or any(not c["numeric"] and not c["bits"] for c in job.spec):
                # (read by 03_publish only for the joined output and for categories aggregated from the rows)
                self.register("sqlanon__mdr_done", pd.DataFrame(codes, copy=False))
            self.register("sqlanon__mdr_stats", pd.DataFrame(stats))
            self.register("sqlanon__mdr_dom", pd.DataFrame({"dim": np.arange(len(job.qi)), "range": dims.range_,
                                                            "nd": dims.nd}))
            self.prof.mark("class extents (numpy)")
            classes = self.render("03_publish")[0]
            self.run("03_publish", [classes])
        if not job.ctx["presorted"]:  # the rows joined to their class (kept columns, another SA type)
            rest = self.render("03_publish")[1:]
            self.run("03_publish", rest[:-1], first=2)
            per_list = con.execute(rest[-1]).fetchall()[0][0]
            self.prof.mark(_stmt_label("03_publish", len(rest) + 1, rest[-1]))
            return per_list, len(stats["pid"])
        out = _Output(con, job, cls_of_row, codes.get("sc"), self.weights, self.sa_texts, self.factors)
        self.checked_table = "sqlanon__mdr_out"
        if job.ctx["grouped"] and job.sa is not None:
            self.counted_table = "sqlanon__mdr_grp"
        # the view the check macros read (t, recursive diversity, or no groups frame to count from)
        job.ctx["view"] = (self.counted_table is None or job.t is not None
                           or (job.l is not None and job.diversity == "recursive"))
        self.register("sqlanon__mdr_grp", out.groups())
        statements = self.render("03_publish")[1 if job.ctx["cls"] else 0:]
        ncp = statements.pop() if job.ctx["cls"] else None
        *view, create = statements
        self.run("03_publish", view)
        self.prof.mark("output groups in class, SA order (numpy)")
        if ncp is None:
            per_list = _ncp_of_classes(stats, dims, job.spec)
            self.groups_np = _published_groups(stats["n"], self.factors, job.spec)
        self.emd = out.emd()
        self.prof.mark("NCP, published groups, largest EMD (numpy)")
        # the checks on the groups frame, then the table is written from the rows frame (CREATE TABLE AS returns
        # its row count: the published count); _verify compares them before the commit
        self.guarantee = _guarantee(con, job, self.checked_table, self.emd, self.counted_table)
        self.prof.mark(f"check macros on {self.counted_table or self.checked_table}")
        self.register("sqlanon__mdr_rows", out.rows())
        self.prof.mark("output rows (numpy)")
        self.guarantee["published"] = con.execute(create).fetchall()[0][0]
        self.prof.mark(_stmt_label("03_publish", len(statements), create))
        if ncp is not None:
            per_list = con.execute(ncp).fetchall()[0][0]
            self.prof.mark(_stmt_label("03_publish", len(statements) + 1, ncp))
        return per_list, len(stats["pid"])

    def _pieces(self, dims):
        """Relaxed Mondrian on atoms: a cut may split an atom into pieces (``mondrian.partition``), so
        an atom may end in several classes. The pieces, from the partitioner's final partitions,
        take the atoms' place: each piece's codes, SA code and weight (its rows), grouped by class.
        Returns (Dims of the pieces, each piece's partition id)."""
        rows = np.concatenate([f[0] for f in self.finals])
        seg_pid = np.concatenate([f[1] for f in self.finals])
        seg_len = np.concatenate([f[2] for f in self.finals])
        self.weights = np.concatenate([f[3] for f in self.finals])
        self.codes_by_rid = {key: np.take(v, rows) for key, v in self.codes_by_rid.items()}
        self.codes_by_rid["n"] = self.weights
        self.finals = [(np.arange(rows.size), seg_pid, seg_len, self.weights)]
        return (mondrian.Dims(np.take(dims.ranks, rows, axis=1), dims.values, dims.range_, dims.nd),
                np.repeat(seg_pid, seg_len))


def _read_arrow(table, job: _Job):
    """01_prepare's fast statement read to Arrow (rows with rid, or atoms with n): the data
    checks of ``_check_data`` on it (NULLs, non-finite floats, rows, the SA), then the same
    (codes, Dims, SA codes, weights) as :func:`_read_codes`, plus each category's values in
    code order and the SA values' texts in code order. A category's code is its rank in the
    sorted list of its texts, as 01_prepare's dictionaries give it."""
    atoms = job.ctx["atoms"]
    cols = {name: table.column(name) for name in table.column_names}
    weights = np.asarray(cols["n"].to_numpy(), dtype=np.int64) if atoms else None
    n = len(table)
    n_rows = int(weights.sum()) if atoms else n

    def rows_where(mask: np.ndarray) -> int:
        return int(weights[mask].sum()) if atoms else int(mask.sum())

    checked = [(f"x{c['i']}", job.qi[c["i"]]) for c in job.spec] + ([("sa", job.sa)] if job.sa else [])
    nulls = [rows_where(cols[x].is_null().to_numpy(zero_copy_only=False)) if cols[x].null_count else 0
             for x, _ in checked]
    floats = [c for c in job.spec if c["type"].upper() in ident.FLOAT_TYPES]
    xs = {c["i"]: cols[f"x{c['i']}"].to_numpy(zero_copy_only=False) for c in job.spec if c["numeric"]}
    nonfinite = [0 if any(nulls) else rows_where(~np.isfinite(xs[c["i"]])) for c in floats]
    sa_codes = sa_texts = None
    if job.sa is not None and not any(nulls):
        sa_codes, sa_values = _sorted_codes(cols["sv"], cols["sa"]) if "sv" in cols else _sorted_codes(cols["sa"])
        sa_texts = sa_values.to_pylist()
    _judge_data(job.source, [name for _, name in checked], nulls, [job.qi[c["i"]] for c in floats], nonfinite, n_rows,
                job.sa, None if sa_codes is None else len(sa_texts), job.k, job.l, job.diversity, job.c,
                lambda: sorted(np.bincount(sa_codes, weights=weights).astype(np.int64).tolist(), reverse=True))
    if atoms:
        at = slice(None)
        codes = {"n": weights}
    else:
        rid = np.asarray(cols["rid"].to_numpy(), dtype=np.int64)
        in_order = bool(n) and rid[0] == 1 and bool(np.all(np.diff(rid) == 1))
        at = slice(None) if in_order else rid - 1  # rid is 1..n: each row's place in row-id order
        codes = {"rid": np.arange(1, n + 1, dtype=np.int64)}
    ranks = np.empty((len(job.spec), n), dtype=np.int32)
    values, range_, nd, dict_values = [], [], [], {}
    for c in job.spec:
        i = c["i"]
        x = np.empty(n, dtype=np.float64)
        if c["numeric"]:
            x[at] = xs[i]
            r, vals = mondrian.dense_ranks(x)
            values.append(vals)
        else:
            r_in, texts = _sorted_codes(cols[f"x{i}"])
            x[at] = r_in
            r = x.astype(np.int32)
            vals = np.arange(len(texts), dtype=np.float64)
            values.append(None)
            dict_values[i] = texts.to_pylist()
        codes[f"x{i}"] = x
        ranks[i] = r
        range_.append(float(vals[-1] - vals[0]) if n else 0.0)
        nd.append(float(vals.size))
    if sa_codes is not None:
        sc = np.empty(n, dtype=np.int64)
        sc[at] = sa_codes
        codes["sc"] = sa_codes = sc
    return codes, mondrian.Dims(ranks, values, range_, nd), sa_codes, weights, dict_values, sa_texts


def _read_codes(con, query: str, spec, with_sa: bool, atoms: bool):
    """The partitioner's input, read in one pass: ``query`` (01_prepare's last statement)
    gives rid, x0.. (codes) and sc (SA code), or with atoms n (rows of the atom) instead
    of rid. Returns the columns in row-id order (rid, x0.., sc, as 03_publish reads them
    back; with atoms in the order read, n instead of rid), the QIs in rank form, the SA
    codes and (with atoms) the weights."""
    got = con.execute(query).fetchnumpy()
    if atoms:
        weights = np.asarray(got["n"], dtype=np.int64)
        n = weights.size
        at = slice(None)
        codes = {"n": weights}
    else:
        rid = np.asarray(got["rid"], dtype=np.int64)
        n, weights = rid.size, None
        at = rid - 1  # rid is 1..n: each row's place in row-id order
        codes = {"rid": np.arange(1, n + 1, dtype=np.int64)}
    ranks = np.empty((len(spec), n), dtype=np.int32)
    values, range_, nd = [], [], []
    for c in spec:
        x = np.empty(n, dtype=np.float64)
        x[at] = np.asarray(got[f"x{c['i']}"], dtype=np.float64)
        codes[f"x{c['i']}"] = x
        r, vals = mondrian.dense_ranks(x)
        ranks[c["i"]] = r
        values.append(vals if c["numeric"] else None)  # (a category's code is its rank already)
        range_.append(float(vals[-1] - vals[0]) if n else 0.0)
        nd.append(float(vals.size))
    sa_codes = None
    if with_sa:
        sa_codes = np.empty(n, dtype=np.int64)
        sa_codes[at] = np.asarray(got["sc"], dtype=np.int64)
        codes["sc"] = sa_codes
    return codes, mondrian.Dims(ranks, values, range_, nd), sa_codes, weights


def _class_stats(con, dims, pid: np.ndarray, spec, weights, finals, dict_values,
                 int_cells: bool = False) -> tuple[dict, np.ndarray, dict]:
    """Per class (final partition, in partition id order; a dict of arrays): its id, its number
    (``eq``, 1..), rows (an atom counts ``weights`` rows), and per QI with
    ``bits`` or numeric its extent: a number's lowest and highest code (``lo<i>``,
    ``hi<i>``), a category's codes as the bits of an int64 (``bits<i>``) and its published
    cell (``cell<i>``); each row's class index (0.., in partition id order); and per category
    with ``bits`` (QI index) its cells as codes: (each class's code, the distinct cells), with
    ``int_cells`` also per number with ``int_cells`` (``_int_cells``). The
    extents are ``reduceat`` over the rows grouped by class as the partitioner left them
    (``finals``: per level its final partitions' rows, ids and sizes)."""
    bit_qis = [c for c in spec if c["bits"]]
    values = dict_values
    if bit_qis and not values:  # the values of each category with bits, in code order
        got = con.execute("SELECT " + ", ".join(f"(SELECT list(v ORDER BY code) FROM sqlanon__mdr_dict{c['i']})"
                                                 for c in bit_qis)).fetchall()[0]
        values = {c["i"]: v for c, v in zip(bit_qis, got)}
    present = np.zeros(int(pid.max()) + 1, dtype=bool)
    present[pid] = True
    inv = (np.cumsum(present) - 1)[pid]  # class index, in partition id order
    ids = np.flatnonzero(present)
    rows = np.concatenate([f[0] for f in finals])          # rows grouped by class
    seg_pid = np.concatenate([f[1] for f in finals])
    seg_len = np.concatenate([f[2] for f in finals])
    by_id = np.argsort(seg_pid)                             # the classes in partition id order
    if not np.array_equal(seg_pid[by_id], ids) or rows.size != pid.size:
        raise SqlanonError("internal error: the partitioner's final partitions do not cover the rows once "
                           "(please report)")
    starts = np.concatenate(([0], np.cumsum(seg_len)[:-1]))
    n = seg_len if weights is None else np.add.reduceat(weights[rows], starts)
    # eq: the class number, 1..G in partition id order (the ids are sorted: no window in 03_publish)
    factors = {}  # per category with bits: (each class's cell as a code, the cells)
    out = {"pid": ids, "eq": np.arange(1, ids.size + 1, dtype=np.int64), "n": n[by_id].astype(np.int64)}
    for c in spec:
        r = dims.ranks[c["i"]][rows]
        if c["numeric"]:
            lo, hi = np.minimum.reduceat(r, starts)[by_id], np.maximum.reduceat(r, starts)[by_id]
            out[f"lo{c['i']}"], out[f"hi{c['i']}"] = dims.values[c["i"]][lo], dims.values[c["i"]][hi]
            if int_cells and c["int_cells"]:
                factors[c["i"]] = _int_cells(lo, hi, dims.values[c["i"]])
        elif c["bits"]:
            bits = np.bitwise_or.reduceat(np.left_shift(np.int64(1), r.astype(np.int64)), starts)[by_id]
            out[f"bits{c['i']}"] = bits
            out[f"cell{c['i']}"], codes, cells = _set_cells(bits, values[c["i"]])
            factors[c["i"]] = (codes, cells)
    return out, inv, factors


def _verify(con, job: _Job, classes: int, checked: str, emd: float | None = None, counted: str | None = None,
            groups: tuple | None = None, m: dict | None = None) -> dict:
    """The guarantee, checked on the published table by the check macros (the call
    fails, and nothing is written, if any is worse than requested); the result's numbers.

    ``sqlanon_profile`` and ``sqlanon_t_closeness`` (and ``sqlanon_recursive_cl``) run on
    ``checked``, in one statement: the published table, or the frame ``sqlanon__mdr_out``
    when the published table is its copy (03_publish: one row per frame row, each QI and
    the SA cast from a category to its text, or from the text back to the SA's type).
    A category maps to one text and two categories of a column never to the same one
    (distinct texts; an SA text casts back exactly), so grouping by the frame's columns
    groups the rows exactly as grouping by the published ones, with the same SA
    counts: k, l and the equal-distance EMD (which does not depend on how the SA values
    are named or ordered) are those of the published table, read from integer
    categories instead of 7 texts per row. The published row count is compared too. The utility numbers come from the class
    table ``sqlanon__mdr_cls`` (one row per class: its size and published cells) instead
    of two more scans of the rows: every published row carries its class's cells (the
    output is the rows joined to their class), so the published QI groups are the classes
    grouped by equal cells and a group's size is the sum of its classes' sizes; that is
    what ``sqlanon_discernibility`` (sum of squared group sizes) and ``sqlanon_avg_group_size``
    (rows / groups / k) compute from the rows. The groups and rows counted both ways must
    agree, else the call fails. ``groups``: those numbers computed in numpy from the class extents
    and cells (``_published_groups``) when no class table was made; the published row count is
    read in the statement of the checks. ``m``: ``_guarantee``'s numbers when ``_Steps.publish`` ran the
    checks (on the frame, before the table was written from it; the published row count is what the
    table's ``CREATE TABLE ... AS`` returned)."""
    if m is None:
        m = _guarantee(con, job, checked, emd, counted, count_of=job.output)
    published = m["published"]
    if groups is not None:
        disc, c_groups, c_rows = groups
    else:
        cells = ", ".join(f"sqlanon__g{col['i']}" for col in job.spec)
        disc, c_groups, c_rows = con.execute(
            f"SELECT coalesce(sum(n * n), 0)::HUGEINT, count(*), coalesce(sum(n), 0)::BIGINT FROM "
            f"(SELECT sum(sqlanon__n) AS n FROM sqlanon__mdr_cls GROUP BY {cells})").fetchall()[0]
    if not _meets(job, m) or (c_groups, c_rows, published) != (m["groups"], m["rows"], m["rows"]):
        raise SqlanonError(f"internal error: Mondrian produced k = {m['k']}, distinct l = {m['dl']}, t = {m['t']} for "
                           f"requested k = {job.k}, l = {job.l}, t = {job.t} ({m['groups']} groups of {m['rows']} "
                           f"rows; {c_groups} of {c_rows} from the classes; {published} rows published); nothing was "
                           "written (please report)")
    return {"rows": int(m["rows"]), "classes": int(classes), "k": int(m["k"]),
            "distinct_l": None if m["dl"] is None else int(m["dl"]),
            "entropy_l": None if m["el"] is None else float(m["el"]), "t": None if m["t"] is None else float(m["t"]),
            "discernibility": int(disc), "avg_class_size": float(m["rows"] / m["groups"] / job.k)}

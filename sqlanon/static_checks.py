"""The input checks of static anonymization (sqlanon.static.anonymize): the
parameters, the columns, the SA and the data, each a clear error naming the
table, column or value and how to fix it, before anything is written; and the
check macros' run on the result before the commit (``_guarantee``, ``_meets``)."""

from __future__ import annotations

import math

from . import ident
from .errors import SqlanonError

_NUMERIC = ident.INTEGER_TYPES + ident.FLOAT_TYPES


def _is_numeric(typ: str) -> bool:
    return typ in _NUMERIC or typ.startswith("DECIMAL")


def _positive_int(value, name: str, minimum: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SqlanonError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _check_params(method, strict, k, l, t, diversity, c, sa, source):
    """The privacy parameters, checked and normalized: (k, l, t, c)."""
    if method != "mondrian":
        raise SqlanonError(f"method {method!r} is not supported; use method='mondrian'")
    if not isinstance(strict, bool):
        raise SqlanonError(f"strict must be True or False, got {strict!r}")
    k = _positive_int(k, "k", 1)
    if diversity not in ("distinct", "entropy", "recursive"):
        raise SqlanonError(f"diversity must be 'distinct', 'entropy' or 'recursive', got {diversity!r}")
    if l is not None:
        l = _positive_int(l, "l", 1)
        _needs_strict_sa("l", l, strict, sa, source)
    c = _check_c(diversity, l, c)
    if t is not None:
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= 1:
            raise SqlanonError(f"t must be a number in (0, 1], got {t!r}")
        t = float(t)
        _needs_strict_sa("t", t, strict, sa, source)
    return k, l, t, c


def _needs_strict_sa(name, value, strict, sa, source) -> None:
    """l and t need the SA and strict Mondrian."""
    if sa is None:
        raise SqlanonError(f"{name} = {value} needs the sensitive attribute: pass sa='<column of {source}>'")
    if not strict:
        what = "an l-diversity" if name == "l" else "a t-closeness"
        raise SqlanonError(f"relaxed Mondrian with {what} constraint is not implemented; use strict=True")


def _check_c(diversity, l, c):
    """c is recursive (c, l)-diversity's, and only its: a number > 0 with l."""
    if diversity == "recursive":
        if l is None or c is None or isinstance(c, bool) or not isinstance(c, (int, float)) or c <= 0:
            raise SqlanonError(f"recursive (c, l)-diversity needs l (an integer >= 1) and c > 0, got l = {l!r}, c = {c!r}")
        return float(c)
    if c is not None:
        raise SqlanonError("c is the c of recursive (c, l)-diversity: pass diversity='recursive' with it")
    return c


def _check_columns(con, source, cols, qi, sa, t, eq_class, keep, output):
    """The SA, eq_class, keep and output names against the source: (keep, output)."""
    if len(qi) > 62:  # a partition's masked QIs are the bits of an int64 (sqlanon/mondrian.py)
        raise SqlanonError(f"Mondrian takes at most 62 QI columns, got {len(qi)} for table {source!r}; "
                           "pass at most 62")
    taken = [x for x in list(qi) + [sa, eq_class] + ([keep] if isinstance(keep, str) else list(keep))
             if isinstance(x, str) and x.lower().startswith("sqlanon__")]
    if taken:  # the working tables' columns (sql/mondrian/) are named so
        raise SqlanonError(f"column {taken[0]!r} of table {source!r}: names starting with 'sqlanon__' are reserved for "
                           "sqlanon's working columns; rename it in a view of the table")
    if sa is not None:
        _check_sa(con, source, cols, qi, sa, t)
    if not isinstance(eq_class, str) or not eq_class or eq_class in qi or eq_class == sa:
        raise SqlanonError(f"eq_class column name {eq_class!r} clashes with a QI/SA column of {source!r}; "
                           "pass eq_class='<another name>'")
    keep = [keep] if isinstance(keep, str) else list(keep)
    if any(x not in cols for x in keep):  # (the catalog read again only for the error)
        ident.require_columns(con, source, keep, role="keep column")
    clash = [x for x in keep if x in qi or x == sa or x == eq_class or keep.count(x) > 1]
    if clash:
        raise SqlanonError(f"keep column {clash[0]!r} is listed twice or is also a QI/SA/eq_class column")
    output = output if output is not None else f"{source}_anonymized"
    if not isinstance(output, str) or not output:
        raise SqlanonError(f"output must be a table name, got {output!r}")
    if ident._exists(con, output):
        raise SqlanonError(f"output table {output!r} already exists; drop it or pass output='<new name>'")
    return keep, output


def _check_sa(con, source, cols, qi, sa, t) -> None:
    """The SA: a column, not a QI, and (with t) not numeric."""
    if sa not in cols:  # (the catalog read again only for the error)
        ident.require_columns(con, source, [sa], role="SA column")
    if t is not None and _is_numeric(cols[sa]):
        raise SqlanonError(f"SA column {sa!r} of table {source!r} is numeric: the t-closeness constraint uses the "
                           "equal ground distance (categorical SA); the ordered distance is not implemented "
                           "(cast the SA to VARCHAR in a view to use the equal distance)")
    if sa in qi:
        raise SqlanonError(f"SA column {sa!r} is also listed as a QI of table {source!r}; a column is one or the other")


def _qi_spec(con, source, cols, qi, hierarchies):
    """The template context of each QI: name, kind, and its hierarchy (checked to be a tree)."""
    hierarchies = dict(hierarchies or {})
    spec = []
    for i, name in enumerate(qi):
        entry = {"i": i, "name": ident.quote(name), "numeric": _is_numeric(cols[name]), "hier": None, "width": 0,
                 "type": cols[name]}
        if name in hierarchies:
            htab = hierarchies.pop(name)
            hcols = ident.require_table(con, htab)
            if len(hcols) < 2:
                raise SqlanonError(f"hierarchy {htab!r} for QI {name!r} needs >= 2 columns (value, level 1, ...)")
            bad = con.execute("SELECT level, cell, problem FROM sqlanon_hierarchy_violations(?) LIMIT 1",
                              [htab]).fetchall()
            if bad:
                raise SqlanonError(f"hierarchy {htab!r} for QI {name!r} is not a tree: level {bad[0][0]} "
                                   f"cell {bad[0][1]!r}: {bad[0][2]} (see sqlanon_hierarchy_violations)")
            if entry["numeric"]:
                raise SqlanonError(f"QI {name!r} of table {source!r} is numeric ({cols[name]}): Mondrian cuts it at "
                                   "the median without a hierarchy; to generalize it by hierarchy cells, pass a "
                                   "view of the table with the column cast to VARCHAR")
            entry.update(numeric=False, hier=ident.qualified(con, htab), width=len(hcols), htab=htab,
                         hfirst=next(iter(hcols)))
        spec.append(entry)
    if hierarchies:
        raise SqlanonError(f"hierarchy given for {sorted(hierarchies)[0]!r}, which is not a QI of {source!r}")
    return spec


def _check_data(con, source, cols, qi, sa, k, l, diversity, c, rel=None, weight=None) -> int:
    """Refuse NULLs (a Mondrian cut has no place for them: drop or impute such rows
    first), NaN and infinities in a floating-point QI (no median, NCP NaN), fewer
    rows than k, and an SA column that is not l-diverse as a whole. Returns the row count.
    Read from ``rel`` instead of the source when given, a row counting ``weight`` rows
    (the atoms: the source's distinct (QI, SA) tuples with their row counts)."""
    checked = qi + ([sa] if sa is not None else [])
    floats = [x for x in qi if cols[x].upper() in ident.FLOAT_TYPES]

    def rows(where: str = "") -> str:  # rows (that meet a condition)
        return f"coalesce(sum({ident.quote(weight)}){where}, 0)" if weight else f"count(*){where}"

    got = con.execute(
        f"SELECT {rows()}, " + ", ".join(rows(f" FILTER ({ident.quote(x)} IS NULL)") for x in checked)
        + "".join(", " + rows(f" FILTER (WHERE NOT isfinite({ident.quote(x)}))") for x in floats)
        + (f", count(DISTINCT {ident.quote(sa)})" if sa is not None else "")
        + f" FROM {ident.quote(rel) if rel else ident.qualified(con, source)}").fetchall()[0]
    n_rows = int(got[0])

    def sa_counts():
        return [r[0] for r in con.execute(
            f"SELECT {rows()} AS n FROM {ident.quote(rel) if rel else ident.qualified(con, source)} "
            f"GROUP BY {ident.quote(sa)} ORDER BY n DESC").fetchall()]

    _judge_data(source, checked, got[1:1 + len(checked)], floats, got[1 + len(checked):1 + len(checked) + len(floats)],
                n_rows, sa, None if sa is None else int(got[-1]), k, l, diversity, c, sa_counts)
    return n_rows


def _judge_data(source, checked, nulls, floats, nonfinite, n_rows, sa, sa_distinct, k, l, diversity, c,
                sa_counts) -> None:
    """The errors of :func:`_check_data` from its counts: NULLs per checked column, non-finite
    values per float QI, rows, distinct SA values and (a callable) the rows per SA value,
    largest first (read only for entropy / recursive l). Also used on counts read in numpy
    (sqlanon/static.py, the Arrow read)."""
    for col, nn in zip(checked, nulls):
        if nn:
            raise SqlanonError(f"column {col!r} of table {source!r} has {nn} NULL values; Mondrian needs complete "
                               "rows: filter them out (WHERE ... IS NOT NULL) or impute them first")
    for col, nb in zip(floats, nonfinite):
        if nb:
            raise SqlanonError(f"column {col!r} of table {source!r} has {nb} NaN or infinite values; Mondrian "
                               "cuts at medians of finite numbers: filter them out (WHERE isfinite(...)) first")
    if n_rows < k:
        raise SqlanonError(f"table {source!r} has {n_rows} rows, fewer than k = {k}: it cannot be k-anonymous")
    if l is not None and sa_distinct < l:
        raise SqlanonError(f"SA column {sa!r} of table {source!r} has {sa_distinct} distinct values, fewer than "
                           f"l = {l}: no partition of it is l-diverse")
    if l is not None and diversity != "distinct":
        _judge_whole_table_diversity(source, sa, l, diversity, c, sa_counts())


def _judge_whole_table_diversity(source, sa, l, diversity, c, counts) -> None:
    """Refuse an SA that is not entropy / recursive (c, l)-diverse as a whole (no partition of it is);
    ``counts``: rows per SA value, largest first."""
    total = sum(counts)
    entropy = -sum(x / total * math.log(x / total) for x in counts)
    if diversity == "entropy" and entropy < math.log(l) - 1e-12:
        raise SqlanonError(f"SA column {sa!r} of table {source!r} is not entropy {l}-diverse as a whole "
                           f"(exp(entropy) = {math.exp(entropy):.3f}): no partition of it is; lower l")
    if diversity == "recursive" and not (len(counts) >= l and counts[0] < c * sum(counts[l - 1:])):
        raise SqlanonError(f"SA column {sa!r} of table {source!r} is not recursive ({c}, {l})-diverse as a whole: "
                           "no partition of it is; raise c or lower l")


def _check_hierarchy_values(con, source, qi, spec) -> None:
    """Every value of a QI with a hierarchy is in it (a count, not the values: an
    error message never echoes data; issue 19)."""
    for col in spec:
        if col["hier"]:
            missing = con.execute(f"SELECT count(*) FROM sqlanon__mdr_dict{col['i']} WHERE lv IS NULL").fetchall()[0][0]
            if missing:
                name = qi[col["i"]]
                raise SqlanonError(
                    f"{missing} distinct value(s) of QI {name!r} of table {source!r} are not in its hierarchy "
                    f"{col['htab']!r}; add them to its column {col['hfirst']!r}. List them with: SELECT DISTINCT "
                    f"{ident.quote(name)} FROM {ident.qualified(con, source)} WHERE {ident.quote(name)} NOT IN "
                    f"(SELECT {ident.quote(col['hfirst'])} FROM {col['hier']})")


def _guarantee(con, job: _Job, checked: str, emd: float | None = None, counted: str | None = None,
               count_of: str | None = None) -> dict:
    """k, groups, rows, distinct l (dl), entropy l (el), t and, for recursive diversity,
    c_required (creq) of table ``checked``, by the check macros. ``emd``: t when it was not
    requested (then not a guarantee but a number of the result), computed from the output
    groups in numpy (``_largest_emd``): ``sqlanon_t_closeness`` runs only when t is requested.
    ``counted``: a table whose rows, each repeated ``sqlanon__n`` times, are ``checked``'s rows
    (the output groups, ``sqlanon__mdr_grp``): k, groups, rows and l are read from it by
    ``sqlanon__profile_counted_unchecked`` (what ``sqlanon_profile`` gives on ``checked``, from one
    row per group instead of one per published row; ``sqlanon__profile_counted`` without its name
    check: the frame was built by ``static_output._Output`` with the QI and SA names ``anonymize`` checked on
    the source); t and recursive diversity still read ``checked``.
    ``count_of``: a table whose row count the same statement reads (``published``)."""
    qi, sa = job.qi, job.sa
    count = f", (SELECT count(*) FROM {ident.quote(count_of)})" if count_of else ""
    if sa is None:
        got = con.execute(f"SELECT *{count} FROM sqlanon_k_anonymity(?, ?)", [checked, qi]).fetchall()[0]
        return {"k": got[0], "groups": got[1], "rows": got[2], "dl": None, "el": None, "t": None, "creq": None,
                "published": got[3] if count_of else None}
    # the profile of the groups' frame with its counts (sqlanon__profile_counted_unchecked: sqlanon_profile of
    # the frame with each group repeated sqlanon__n times, i.e. of the view checked) when there is one
    profile = "sqlanon_profile" if counted is None else "sqlanon__profile_counted_unchecked"
    if emd is not None and job.t is None:
        got = con.execute(f"SELECT k, groups, rows, distinct_l, entropy_l, $4::DOUBLE{count} FROM {profile}($1, $2, $3)",
                          [checked if counted is None else counted, qi, sa, emd]).fetchall()[0]
    else:
        got = con.execute(f"SELECT p.k, p.groups, p.rows, p.distinct_l, p.entropy_l, c.t{count} FROM "
                          + f"{profile}({'$1' if counted is None else '$4'}, $2, $3) p, sqlanon_t_closeness($1, $2, $3, false) c",
                          [checked, qi, sa] + ([] if counted is None else [counted])).fetchall()[0]
    m = dict(zip(("k", "groups", "rows", "dl", "el", "t"), got), creq=None, published=got[6] if count_of else None)
    if job.l is not None and job.diversity == "recursive":
        m["creq"] = con.execute("SELECT c_required FROM sqlanon_recursive_cl(?, ?, ?, ?)",
                                [checked, qi, sa, job.l]).fetchall()[0][0]
    return m


def _meets(job: _Job, m: dict) -> bool:
    """Whether the checked numbers meet the request (entropy l up to 1e-9: docs/static.md)."""
    l, diversity = job.l, job.diversity
    bad_l = l is not None and (m["dl"] < l or (diversity == "entropy" and m["el"] < l - 1e-9)
                               or (diversity == "recursive" and (m["creq"] is None or m["creq"] >= job.c)))
    return m["k"] is not None and m["k"] >= job.k and not bad_l and (job.t is None or m["t"] <= job.t)

"""The checks of a release before it runs (docs/publisher.md): the source
(columns, NULLs, duplicate ids, the SA values against the model's limits:
``Model.max_sa_values`` and the engine's masks), the ledger's parameters and
schema, and the state tables. The data checks are one scan of the source
that also digests it for the ledger's fingerprint (two small aggregates
more: the SA values by a grouping of their own, the duplicate ids). Messages
give counts and column names, never an id or a value.
"""

from __future__ import annotations

import json
import logging

from .errors import SqlanonError
from .ident import FLOAT_TYPES, INTEGER_TYPES, quote, require_not_file
from .ledger import source_digest

#: what a user should know about a release that is not an error (WARNING level)
LOG = logging.getLogger("sqlanon")


def validate(pub) -> dict[str, str]:
    """Check the source and the project before a release (inside its
    transaction); the source's column types by name. Sets ``pub._digest`` and
    ``pub._rows`` (the source digest and row count behind the ledger's
    fingerprint)."""
    # DuckDB names are case-insensitive: 'Ward' would write into project 'ward''s tables
    spelled = pub.proj.spelling(pub.engine) if pub._exists("ledger") else None
    if spelled is not None and spelled != pub.project:
        raise SqlanonError(f"project {pub.project!r} differs only in case from existing project {spelled!r} "
                           "(DuckDB table names are case-insensitive, so they would be one set of tables); use "
                           f"{spelled!r} to continue it, or another name for a new project; nothing was written")
    require_not_file(pub.engine, pub.source)
    cols = pub.engine.columns(pub.source)
    for role, names in (("id column", [pub.id]), ("SA column", [pub.sa]), ("QI column", pub.qi)):
        for c in names:
            if c not in cols:
                raise SqlanonError(f"{role} {c!r} is not a column of source table {pub.source!r}; "
                                   f"its columns are: {', '.join(cols)}")
    src, i, s = pub._src(), quote(pub.id), quote(pub.sa)
    # one scan for all data checks and the source digest behind the ledger's
    # fingerprint (run inside the release's transaction, so it is the source the
    # release reads; _fingerprint keys it)
    int_id = cols[pub.id].upper() in INTEGER_TYPES
    # floating-point QI: NaN and infinities have no extent (max - min is NaN),
    # so NCP and the generalized ranges would be NaN
    floats = [c for c in pub.qi if cols[c].upper() in FLOAT_TYPES]
    null_id, null_sa, pub._digest, n, lo, hi, *nonfinite = pub._q(
        f"SELECT count(*) FILTER (WHERE {i} IS NULL), "
        f"count(*) FILTER (WHERE {s} IS NULL), "
        f"{source_digest([i, s, *(quote(c) for c in pub.qi)])}, count({i}), "
        + (f"min({i}), max({i})" if int_id else "NULL, NULL")
        + "".join(f", count(*) FILTER (WHERE NOT isfinite({quote(c)}))" for c in floats) + f" FROM {src}")[0]
    # the distinct SA values by a grouping of their own: a count(DISTINCT) in
    # the scan above made DuckDB run all of it through a materialized CTE
    # (Adult: 8.3 ms against 5.1 + 1.5)
    # (a VARCHAR SA: values that DuckDB compares equal but spells differently, a collation)
    text = cols[pub.sa].upper() == "VARCHAR"
    l, top, spelled = pub._q(
        f"SELECT count(*), coalesce(max(c), 0), {'count(*) FILTER (WHERE lo <> hi)' if text else '0'} FROM "
        f"(SELECT count(*) AS c{f', min(encode({s})) AS lo, max(encode({s})) AS hi' if text else ''} FROM {src} "
        f"WHERE {s} IS NOT NULL GROUP BY {s})")[0]
    pub._rows = n
    # duplicate ids: integer ids in a range of at most max(64 n, 2^24) values set
    # one bit each in a bitmap (bitstring_agg; 10M ids: 0.04 s), else
    # count(DISTINCT) (10M ids: 1.0-1.5 s)
    if pub.engine.bitmaps and int_id and n and int(hi) - int(lo) < max(64 * n, 1 << 24):
        dup = n - pub._q(f"SELECT bit_count(bitstring_agg({i}, $lo, $hi)) FROM {src}",
                          {"lo": int(lo), "hi": int(hi)})[0][0]
    else:
        dup = pub._q(f"SELECT count({i}) - count(DISTINCT {i}) FROM {src}")[0][0]
    if null_id:
        raise SqlanonError(f"source {pub.source!r} has a NULL in id column {pub.id!r}; every person needs an id")
    # messages give counts and column names, never an id or a value (they
    # end up in logs and tickets)
    if dup:
        raise SqlanonError(f"source {pub.source!r} has duplicate ids in column {pub.id!r} ({dup} rows more "
                           "than distinct ids); keep one row per person")
    if null_sa:
        raise SqlanonError(f"source {pub.source!r} has {null_sa} rows with a NULL in SA column {pub.sa!r}; "
                           "fill or drop such rows before releasing")
    if spelled:
        raise SqlanonError(f"SA column {pub.sa!r} of {pub.source!r} has {spelled} value"
                           f"{'s' if spelled != 1 else ''} that DuckDB compares equal to other spellings (a collation such as NOCASE on the column, or the "
                           "database's default_collation), which the published tables would show as different "
                           "values; release a view with one spelling per value, e.g. CREATE VIEW v AS SELECT * "
                           f"REPLACE (lower({quote(pub.sa)}) AS {quote(pub.sa)}) FROM {src}")
    for c, bad in zip(floats, nonfinite):
        if bad:
            raise SqlanonError(f"source {pub.source!r} has {bad} rows with NaN or an infinity in QI column {c!r}; "
                               "a range needs finite numbers: set them to NULL (UPDATE ... SET "
                               f"{quote(c)} = NULL WHERE NOT isfinite({quote(c)})) or release a view without them")
    # a model without signatures: after the first release too few values only means suppression
    if l < pub.m and (pub.spec.signatures or not pub._exists("ledger")):
        k = pub.spec.parameter
        if n == 0:
            raise SqlanonError(f"source {pub.source!r} is empty: a release needs persons, at least {k} = "
                               f"{pub.m} of them with {pub.m} distinct values of SA column {pub.sa!r}; fill "
                               "it (or name the right table) and release again")
        if l < 2:
            raise SqlanonError(f"source {pub.source!r} has {n} rows but only {l} distinct value of SA column "
                               f"{pub.sa!r}: {k} = {pub.m} needs at least {pub.m} distinct values (and {k} is "
                               "at least 2); add persons with other values, or choose another SA column")
        raise SqlanonError(f"{k} = {pub.m} is above the {l} distinct values of SA column {pub.sa!r} in "
                           f"{pub.source!r}; choose {k} <= {l}")
    # (the values of the earlier releases' signatures join the count in step
    # 2, which lists them all anyway: the model's templates)
    if pub.spec.max_sa_values is not None and l > min(pub.spec.max_sa_values, pub.engine.signature_values):
        limit = min(pub.spec.max_sa_values, pub.engine.signature_values)  # the model's and the engine's masks
        raise SqlanonError(f"SA column {pub.sa!r} has {l} distinct values; the {pub.model} pipeline supports "
                           f"at most {limit} on the {pub.engine.name} engine (signatures are bit masks); bucket "
                           "the values first")
    if pub._exists("ledger"):
        first = pub._q(f"SELECT params, source_schema FROM {pub.proj.ref('ledger')} ORDER BY release LIMIT 1")
        old_params, old_schema = json.loads(first[0][0]), json.loads(first[0][1])
        for k, v in pub.params().items():
            if old_params.get(k) != v:
                raise SqlanonError(f"project {pub.project!r} was released with {k} = {old_params.get(k)!r}, "
                                   f"now {v!r}; use the same parameters or a new project name")
        for c, t in old_schema.items():
            if c not in cols:
                raise SqlanonError(f"source {pub.source!r} lost column {c!r} ({t}) since the last release of "
                                   f"project {pub.project!r} (dropped or renamed); restore it")
            if cols[c] != t:
                raise SqlanonError(f"column {c!r} of source {pub.source!r} changed type from {t} to {cols[c]} "
                                   f"since the last release of project {pub.project!r}; cast it back")
        check_state(pub)
    for key in ("qit", "st", "pub", "mem"):
        name = pub.tables[key]
        if pub._exists(key) and not pub._exists("ledger"):
            raise SqlanonError(f"table {name!r} exists but project {pub.project!r} has no ledger; "
                               "drop it or choose another project name")
    if pub.spec.signatures and n and top * pub.m > n:  # valid input, but the user should know
        warn_dominant(pub, top, n)
    return cols

def warn_dominant(pub, top: int, n: int) -> None:
    """A value above 1/m of the source: a group holds at most one row of each
    value, so there are at least ``top`` groups of at least m rows, and at
    least m * top - n rows are counterfeits. Where the QI shows that value (marital
    status and sex show a relationship's Husband), a reader of the QI table
    tells many of them apart, whatever QI they get (docs/threat_model.md,
    "Why relationship m = 4 cannot meet the limit"). Counts only: no value
    is named."""
    fix = f"m <= {n // top} avoids this" if n // top >= 2 else "bucketing the SA values avoids this"
    LOG.warning("project %r: the most frequent value of SA column %r holds %.0f%% of the source's rows, above "
                "1/m = %.0f%%; a group holds at most one row of each value, so at least %.0f%% of the published "
                "rows are counterfeits, and if the QI predicts that value a reader of the QI table can tell many "
                "of them apart (docs/threat_model.md, \"Counterfeits\"); %s", pub.project, pub.sa,
                100 * top / n, 100 / pub.m, 100 * (1 - n / (pub.m * top)), fix)


def check_state(pub) -> None:
    """Before a release of an existing project: its state tables are there
    and hold what the ledger says the last release published (a table
    dropped or edited by hand would make the next release wrong silently)."""
    need = ["qit", "st", "mem"] + (["pub"] if pub.output == "generalized" else [])
    need += list(pub.spec.state)
    for key in need:
        if not pub._exists(key):
            raise SqlanonError(f"project {pub.project!r} is damaged: its table {pub.tables[key]!r} is missing "
                               "(dropped by hand?); restore it from a backup or start a new project name")
    last, published = pub._q(f"SELECT release, published FROM {pub.proj.ref('ledger')} "
                              "ORDER BY release DESC LIMIT 1")[0]
    rows = "count(*) FILTER (WHERE release = $r)"
    checks = [("qit", rows), ("st", "coalesce(sum(count) FILTER (WHERE release = $r), 0)")]
    if pub.output == "generalized":
        checks.append(("pub", rows))
    # the membership as intervals: its open rows are the last release's
    n, later = pub._q(f"SELECT count(*) FILTER (WHERE last_release IS NULL), count(*) FILTER (WHERE first_release > $r "
                       f"OR last_release > $r) FROM {pub.proj.ref('mem')}", {"r": last})[0]
    if n != published or later:
        raise SqlanonError(f"project {pub.project!r} is damaged: table {pub.tables['mem']!r} holds {n} rows "
                           f"of release {last} and {later} of later releases, but the ledger says release "
                           f"{last} published {published} rows (edited by hand?); restore it from a backup "
                           "or start a new project name")
    for key, agg in checks:
        n, later = pub._q(f"SELECT {agg}, count(*) FILTER (WHERE release > $r) FROM {pub.proj.ref(key)} "
                           "WHERE release >= $r", {"r": last})[0]
        if n != published or later:
            raise SqlanonError(f"project {pub.project!r} is damaged: table {pub.tables[key]!r} holds {n} rows "
                               f"of release {last} and {later} of later releases, but the ledger says release "
                               f"{last} published {published} rows (edited by hand?); restore it from a backup "
                               "or start a new project name")

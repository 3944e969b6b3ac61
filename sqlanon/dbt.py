"""Releases from dbt (docs/dbt.md): the body of a dbt-duckdb Python model that
makes the next release of a sqlanon project on dbt's own database.

The model file (dbt reads ``dbt.ref`` and ``dbt.config.get`` from it, so they
stay in it)::

    import sqlanon.dbt

    def model(dbt, session):
        dbt.ref("patients")                      # build the source first
        return sqlanon.dbt.release(session, dbt.config.meta_get("sqlanon"))

with the model's meta ``sqlanon`` set from a ``dbt_project.yml`` var in its
properties (``config: {meta: {sqlanon: "{{ var('ward') }}"}}``): a mapping with the project name and the
:class:`sqlanon.Publisher` arguments. Python decides nothing here: it checks
the mapping and calls the Publisher, which runs its SQL in its own transaction.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping

import duckdb
import pandas as pd

from .errors import SqlanonError
from .install import SHELL_STORAGE_VERSION, file_storage_version, install, macro_names
from .publisher import Publisher

LOG = logging.getLogger("sqlanon")

#: keys the mapping must have; the others are the Publisher's optional arguments (model, output, seed,
#: templates_dir) and the model's parameters (m or l, eligibility)
REQUIRED = ("project", "source", "id", "qi", "sa")


def connection(session) -> duckdb.DuckDBPyConnection:
    """The DuckDB connection behind dbt-duckdb's Python-model ``session``: the
    session itself, or a cursor of it (dbt-duckdb hands a wrapper around its
    connection; ``cursor()`` is a connection to the same database)."""
    if isinstance(session, duckdb.DuckDBPyConnection):
        return session
    cursor = getattr(session, "cursor", None)
    con = cursor() if callable(cursor) else None
    if not isinstance(con, duckdb.DuckDBPyConnection):
        raise SqlanonError(f"sqlanon.dbt.release needs dbt-duckdb's session (a DuckDB connection), got "
                           f"{type(session).__name__}; run the model on a dbt-duckdb target")
    return con


def publisher_arguments(config) -> tuple[str, dict]:
    """The project name and the Publisher's keyword arguments from the model's
    meta ``sqlanon`` (a dbt var); an error names the missing key (the
    Publisher checks the rest).

    >>> publisher_arguments({"project": "ward", "source": "patients", "id": "id", "qi": ["age"],
    ...                      "sa": "disease", "m": 3})
    ('ward', {'source': 'patients', 'id': 'id', 'qi': ['age'], 'sa': 'disease', 'm': 3})
    >>> publisher_arguments({"project": "ward", "source": "patients"})
    Traceback (most recent call last):
    ...
    sqlanon.errors.SqlanonError: the model's meta 'sqlanon' has no 'id'; it needs project, source, id, qi, sa (docs/dbt.md)
    """
    if not isinstance(config, Mapping):
        raise SqlanonError("the model's meta 'sqlanon' must be a mapping: in the model's properties, "
                           f"config: {{meta: {{sqlanon: \"{{{{ var('...') }}}}\"}}}} (docs/dbt.md), got {config!r}")
    missing = [k for k in REQUIRED if config.get(k) in (None, "", [])]
    if missing:
        raise SqlanonError(f"the model's meta 'sqlanon' has no {missing[0]!r}; it needs {', '.join(REQUIRED)} "
                           "(docs/dbt.md)")
    args = dict(config)
    return str(args.pop("project")), args


def release(session, config) -> pd.DataFrame:
    """Make the next release of the project that ``config`` describes on dbt's
    database (one transaction: the Publisher's) and return its
    :class:`sqlanon.ReleaseResult` as a one-row DataFrame (the model's table)."""
    project, args = publisher_arguments(config)
    con = connection(session)
    try:
        have = {r[0] for r in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE function_name LIKE 'sqlanon%'").fetchall()}
        if set(macro_names()) - have:  # the package's on-run-start hook installs them; the templates need them
            install(con)
        version = file_storage_version(con) or ""
        if version.startswith("v2"):
            LOG.warning("sqlanon: the dbt database has DuckDB storage version %s, which the DuckDB shell 1.5 "
                        "cannot open; set config_options: {storage_compatibility_version: %s} in the dbt profile "
                        "before the file is created (docs/dbt.md)", version, SHELL_STORAGE_VERSION)
        result = Publisher(con, project, **args).release()
    finally:
        if con is not session:  # a cursor opened here
            con.close()
    LOG.info("sqlanon: %s: %s", project, result.line())
    return pd.DataFrame([{"project": project, **dataclasses.asdict(result)}])

"""The UCI Adult data set, bundled (CC BY 4.0; Becker & Kohavi 1996, UCI ML
Repository, doi:10.24432/C5XW20; see sqlanon/data/ADULT_SOURCE.md).

Column names use ``_`` for the UCI ``-`` (``marital_status``); ``?`` becomes NULL.
Rows get an ``id`` 1..n: adult.data first, then adult.test.
"""

from __future__ import annotations

import duckdb

from ._resources import data_dir
from .errors import SqlanonError
from .ident import quote

ADULT_COLUMNS: dict[str, str] = {
    "age": "INTEGER",
    "workclass": "VARCHAR",
    "fnlwgt": "INTEGER",
    "education": "VARCHAR",
    "education_num": "INTEGER",
    "marital_status": "VARCHAR",
    "occupation": "VARCHAR",
    "relationship": "VARCHAR",
    "race": "VARCHAR",
    "sex": "VARCHAR",
    "capital_gain": "INTEGER",
    "capital_loss": "INTEGER",
    "hours_per_week": "INTEGER",
    "native_country": "VARCHAR",
    "income": "VARCHAR",
}

_PARTS = {"data": ["adult.data.gz"], "test": ["adult.test.gz"], "both": ["adult.data.gz", "adult.test.gz"]}


def load_adult(
    con: duckdb.DuckDBPyConnection,
    table: str = "adult",
    *,
    part: str = "data",
    complete: bool = False,
    replace: bool = True,
) -> int:
    """Create ``table`` with Adult (``part`` = "data" 32,561 rows, "test" 16,281,
    "both" 48,842). ``complete=True`` keeps only rows without a missing value
    (30,162 / 15,060 / 45,222). Returns the row count."""
    if part not in _PARTS:
        raise SqlanonError(f"part must be one of {sorted(_PARTS)}, got {part!r}")
    cols_struct = "{" + ", ".join(f"'{c}': 'VARCHAR'" for c in ADULT_COLUMNS) + "}"
    selects = []
    for i, fname in enumerate(_PARTS[part]):
        skip = 1 if fname.startswith("adult.test") else 0
        selects.append(
            f"SELECT {i} AS _part, row_number() OVER () AS _row, * FROM read_csv(?, header=false, delim=',', "
            f"skip={skip}, columns={cols_struct}, null_padding=true)"
        )
    params = [str(data_dir() / f) for f in _PARTS[part]]
    casts = ", ".join(
        f"CAST(nullif(trim({quote(c)}), '?') AS {t}) AS {quote(c)}"
        if c != "income"
        else f"rtrim(trim({quote(c)}), '.') AS {quote(c)}"
        for c, t in ADULT_COLUMNS.items()
    )
    where = "age IS NOT NULL AND trim(age) <> ''"
    if complete:
        where += "".join(f" AND nullif(trim({quote(c)}), '?') IS NOT NULL" for c in ADULT_COLUMNS)
    sql = (
        f"CREATE {'OR REPLACE ' if replace else ''}TABLE {quote(table)} AS "
        f"SELECT CAST(row_number() OVER (ORDER BY _part, _row) AS BIGINT) AS id, {casts} "
        f"FROM ({' UNION ALL '.join(selects)}) WHERE {where} ORDER BY id"
    )
    con.execute(sql, params)
    return con.execute(f"SELECT count(*) FROM {quote(table)}").fetchall()[0][0]

"""Every base table's rows as an md5, to assert that a refused or failed
release left the database exactly as it was (shared by the tests)."""

from __future__ import annotations

from sqlanon.ident import quote


def tables_md5(con) -> dict:
    """Every base table of every attached database -> (rows, md5 of its rows)."""
    out = {}
    for db, schema, name in con.execute(
            "SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE NOT temporary "
            "ORDER BY ALL").fetchall():
        rel = f"{quote(db)}.{quote(schema)}.{quote(name)}"
        out[(db, schema, name)] = con.execute(
            f"SELECT count(*), md5(coalesce(string_agg(t::VARCHAR, '|' ORDER BY t::VARCHAR), '')) FROM {rel} AS t"
        ).fetchall()[0]
    return out

"""DuckDB's recursive CTEs on Spark: computed in the driver, one Spark job per
round (:meth:`RecursiveCTEs._recursive_ctes`), a part of the Spark engine."""

from __future__ import annotations

import uuid

from pyspark.sql import DataFrame
from sqlglot import exp

from .errors import SparkSQLError
from .passes import _rename_tables


class RecursiveCTEs:
    """Mixed into :class:`sqlanon.engines.spark.engine.SparkEngine` (uses its
    ``spark`` session and ``_checkpoint``)."""

    def _recursive_ctes(self, tree: exp.Expression) -> tuple[exp.Expression, list[str]]:
        """``tree`` with the CTEs of every ``WITH RECURSIVE`` computed in the
        driver, each into a temp view that the query then reads. Spark's own
        recursive CTEs take only ``UNION ALL``; the library's (the audit's
        comparison attacks, macros/audit_comparison.sql) use DuckDB's two other
        kinds too, on graphs with cycles: ``UNION`` (each row once: the
        iteration adds only rows not found before, and ends when none is new)
        and ``USING KEY (k)`` (the CTE holds one row per key, a later row of a
        key replacing the earlier; the step reads the rows of the last round as
        the CTE and all rows as ``recurring.<name>``; it ends when a round gives
        no row). Each round is one Spark job over the rows of the round before.
        Returns the tree and the temp views it reads."""
        made: list[str] = []
        while (w := next((w for w in tree.find_all(exp.With) if w.args.get("recursive")), None)) is not None:
            views: dict[str, str] = {}
            for cte in w.expressions:
                name = cte.alias_or_name.lower()
                cols = [c.name for c in cte.args["alias"].columns] if cte.args["alias"].columns else None
                view = f"sqlanon__cte{uuid.uuid4().hex[:8]}_{name}"
                body = _rename_tables(cte.this, views)
                own = [t for t in body.find_all(exp.Table) if t.name.lower() == name and not t.args.get("db")]
                if own and isinstance(body, exp.Union):
                    df = self._fixpoint(body, name, cols, [k.name for k in cte.args.get("key_expressions") or []])
                else:
                    df = self.spark.sql(body.sql(dialect="spark"))
                    df = self._checkpoint(df.toDF(*cols) if cols else df)
                df.createOrReplaceTempView(view)
                made.append(view)
                views[name] = view
            outer = w.parent
            outer.set("with_", None)
            new = _rename_tables(outer, views)
            if outer is tree:
                tree = new
            else:
                outer.replace(new)
        return tree, made

    def _fixpoint(self, body: exp.Union, name: str, cols, key: list[str]) -> DataFrame:
        """The rows of recursive CTE ``name`` (see _recursive_ctes)."""
        def run(q: exp.Expression, work: str | None = None, allr: str | None = None) -> DataFrame:
            q = q.copy()
            for t in list(q.find_all(exp.Table)):
                if t.name.lower() == name and work and (t.text("db").lower() in ("", "recurring")):
                    view = allr if t.text("db").lower() == "recurring" else work
                    alias = t.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
                    t.replace(exp.Table(this=exp.to_identifier(view), alias=alias.copy()))
            df = self.spark.sql(q.sql(dialect="spark"))
            return df.toDF(*cols) if cols else df
        distinct = bool(body.args.get("distinct"))
        base = run(body.this)
        found = self._checkpoint(base.distinct() if distinct or key else base)
        work = found
        tag = uuid.uuid4().hex[:8]
        for _ in range(100_000):
            work.createOrReplaceTempView(f"sqlanon__w{tag}")
            found.createOrReplaceTempView(f"sqlanon__r{tag}")
            new = run(body.expression, f"sqlanon__w{tag}", f"sqlanon__r{tag}")
            if distinct and not key:
                new = new.distinct().subtract(found)
            new = self._checkpoint(new)
            if new.isEmpty():
                break
            if key:
                found = found.join(new.select(*key), on=key, how="left_anti").unionByName(new)
            else:
                found = found.unionByName(new)
            found, work = self._checkpoint(found), new
        else:
            raise SparkSQLError(f"recursive CTE {name!r} did not end in 100,000 rounds")
        self.spark.catalog.dropTempView(f"sqlanon__w{tag}")
        self.spark.catalog.dropTempView(f"sqlanon__r{tag}")
        return found


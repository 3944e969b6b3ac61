"""DuckDB's writes on Spark DataFrames (CREATE, INSERT, UPDATE, DELETE, DROP,
ALTER ... ADD COLUMN): each statement rewritten as a SELECT of the table's new
content, which the engine checkpoints and registers (Spark's Parquet tables
have no UPDATE or DELETE). A part of the Spark engine."""

from __future__ import annotations

from pyspark.sql import types as T
from sqlglot import exp

from .dialect import spark_type
from .errors import SparkMissing, SparkSQLError
from .storage import MAIN
from .passes import _bq


def _dtype(t: T.DataType) -> exp.DataType:
    return exp.DataType.build(t.simpleString(), dialect="spark")


class Statements:
    """Mixed into :class:`sqlanon.engines.spark.engine.SparkEngine` (uses its
    tables, ``_set``, ``_query`` and ``_autocommit``)."""

    def _create(self, tree: exp.Create, params) -> None:
        kind = (tree.args.get("kind") or "").upper()
        if kind == "SCHEMA":
            name = tree.this.text("db") or tree.this.name
            if self._txn is not None:
                self._schemas.add(name.lower())
            else:
                with self._autocommit():
                    self._schemas.add(name.lower())
            return
        props = tree.args.get("properties")
        temporary = bool(props and any(isinstance(p, exp.TemporaryProperty) for p in props.expressions))
        table = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        name, db = table.name, table.text("db")
        if kind == "VIEW" and temporary:
            q = tree.expression
            sql = f"CREATE OR REPLACE TEMPORARY VIEW `{name}` AS {self.sql(q, params)}"
            self.spark.sql(sql)
            self._temps[name.lower()] = None
            return
        if kind != "TABLE":
            raise SparkSQLError(f"the Spark engine cannot run CREATE {kind}: {tree.sql('duckdb')[:100]}")
        if isinstance(tree.this, exp.Schema):
            cols = [c for c in tree.this.expressions if isinstance(c, exp.ColumnDef)]
            sel = ", ".join(f"CAST(NULL AS {spark_type(c.args['kind'].sql('duckdb'))}) AS `{c.name}`" for c in cols)
            df = self.spark.sql(f"SELECT {sel} WHERE false")
        else:
            df = self._query(tree.expression, params)
        if temporary:
            if name.lower() in self._temps and not tree.args.get("replace"):
                if tree.args.get("exists"):
                    return
                raise SparkSQLError(f"temporary table {name!r} already exists")
            self._set(name.lower(), df)
            return
        key = ((db or MAIN).lower(), name.lower())
        if key[0] not in self._schemas:
            raise SparkSQLError(f"schema {db!r} does not exist; create it first")
        if key in self._tables and not tree.args.get("replace"):
            if tree.args.get("exists"):
                return
            raise SparkSQLError(f"table {table.sql('duckdb')!r} already exists")
        with self._autocommit():
            self._names[key] = (db or MAIN, name)
            self._set(key, df)

    def _insert(self, tree: exp.Insert, params) -> None:
        target = tree.this
        cols = None
        if isinstance(target, exp.Schema):
            cols = [c.name for c in target.expressions]
            target = target.this
        key = self._target(target, "INSERT")
        old = self._content(key)
        src = tree.expression
        if isinstance(src, exp.Values):  # rows as SELECTs: Spark's VALUES takes no scalar subquery
            rows = [exp.select(*[e.copy() for e in t.expressions]) for t in src.expressions]
            src = rows[0]
            for r in rows[1:]:
                src = exp.union(src, r, distinct=False)
        q = self.sql(src, params)
        new_cols = self.spark.sql(q).columns  # (analysis only, once)
        width = len(new_cols)
        names = old.columns
        if tree.args.get("by_name"):
            cols = list(new_cols)
            missing = [c for c in cols if c.lower() not in {n.lower() for n in names}]
            if missing:
                raise SparkSQLError(f"INSERT BY NAME into {target.sql('duckdb')!r}: no column {missing[0]!r}")
        if cols is None:
            cols = names[:width]
        if len(cols) != width:
            raise SparkSQLError(f"INSERT into {target.sql('duckdb')!r}: {width} values for {len(cols)} columns")
        # one SQL union (the old rows, the new ones by position cast to the table's types): built with the
        # DataFrame API instead, Spark 4 failed to checkpoint some of these plans ("key not found")
        pos = {c.lower(): i for i, c in enumerate(cols)}
        types = dict(old.dtypes)
        sel = ", ".join(f"CAST({f'sqlanon__c{pos[c.lower()]}' if c.lower() in pos else 'NULL'} AS {types[c]}) "
                        f"AS {_bq(c)}" for c in names)
        aliases = ", ".join(f"sqlanon__c{i}" for i in range(width))
        view = key if isinstance(key, str) else self._view(key)
        with self._autocommit():
            self._set(key, self.spark.sql(f"SELECT * FROM {_bq(view)} UNION ALL "
                                          f"SELECT {sel} FROM ({q}) AS sqlanon__new({aliases})"))

    def _update(self, tree: exp.Update, params) -> None:
        table = tree.this
        key = self._target(table, "UPDATE")
        alias = table.alias_or_name
        old = self._content(key)
        sets = {e.this.name.lower(): e.expression for e in tree.expressions}
        where = tree.args.get("where")
        cond = where.this if where else exp.true()
        src = tree.args.get("from") or tree.args.get("from_")
        tgt = exp.Table(this=exp.to_identifier("sqlanon__upd_old"), alias=exp.TableAlias(this=exp.to_identifier(alias)))
        old.createOrReplaceTempView("sqlanon__upd_old")
        hit = cond
        q = exp.select().from_(tgt)
        if src is not None:
            other = src.this
            oalias = other.alias_or_name
            joined = exp.Subquery(this=exp.select("*", exp.alias_(exp.true(), "sqlanon__hit")).from_(other.copy()),
                                  alias=exp.TableAlias(this=exp.to_identifier(oalias)))
            q = q.join(joined, on=cond, join_type="LEFT")
            hit = exp.column("sqlanon__hit", oalias).is_(exp.true())
        for c in old.columns:
            col = exp.column(c, alias, quoted=True)
            if c.lower() in sets:
                val = exp.Case(ifs=[exp.If(this=hit.copy(), true=exp.cast(sets[c.lower()].copy(),
                                                                       _dtype(old.schema[c].dataType)))],
                               default=col)
                q = q.select(exp.alias_(val, c, quoted=True))
            else:
                q = q.select(exp.alias_(col, c, quoted=True))
        new = self._query(q, params)
        if src is not None:  # (checkpointed first: the new rows are computed once, both counts read kept rows)
            new = self._checkpoint(new)
            if old.count() != new.count():
                raise SparkSQLError(f"UPDATE of {table.sql('duckdb')!r}: a row matched more than one row of FROM")
        with self._autocommit():
            self._set(key, new, checkpoint=src is None)

    def _delete(self, tree: exp.Delete, params) -> None:
        table = tree.this
        key = self._target(table, "DELETE")
        old = self._content(key)
        old.createOrReplaceTempView("sqlanon__del_old")
        where = tree.args.get("where")
        tgt = exp.Table(this=exp.to_identifier("sqlanon__del_old"),
                        alias=exp.TableAlias(this=exp.to_identifier(table.alias_or_name)))
        q = exp.select("*").from_(tgt)
        if where is not None:
            q = q.where(exp.not_(exp.Coalesce(this=exp.Paren(this=where.this.copy()), expressions=[exp.false()])))
        else:
            q = q.where(exp.false())
        with self._autocommit():
            self._set(key, self._query(q, params))

    def _drop(self, tree: exp.Drop) -> None:
        for t in tree.args.get("tables") or tree.expressions or [tree.this]:
            key = self._key(t)
            if key is None:
                if tree.args.get("exists"):
                    continue
                raise SparkMissing(f"DROP: {t.sql('duckdb')!r} does not exist")
            if isinstance(key, str):
                self._temps.pop(key)
                self.spark.catalog.dropTempView(key)
            else:
                with self._autocommit():
                    self._tables.pop(key)
                    self.spark.catalog.dropTempView(self._view(key))
                    self._txn["dirty"].add(key)

    def _alter(self, tree: exp.Alter) -> None:
        from pyspark.sql import functions as F
        key = self._target(tree.this, "ALTER TABLE")
        df = self._content(key)
        for a in tree.args.get("actions") or []:
            if not isinstance(a, exp.ColumnDef):
                raise SparkSQLError(f"ALTER TABLE: only ADD COLUMN is supported, not {a.sql('duckdb')}")
            if a.name.lower() in (c.lower() for c in df.columns):
                if a.args.get("exists"):
                    continue
                raise SparkSQLError(f"ALTER TABLE: column {a.name!r} exists")
            df = df.withColumn(a.name, F.lit(None).cast(spark_type(a.args["kind"].sql("duckdb"))))
        with self._autocommit():
            self._set(key, df)


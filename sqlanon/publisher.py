"""The continuous publisher (issue 4): release after release of a changing
source table, published in the release contract's tables (docs/contracts.md)
with the project's state next to them (docs/publisher.md). The models are the
registry ``sqlanon.models.MODELS``; the Publisher reads only their
declarations (:class:`sqlanon.models.base.Model`) and knows none by name
(docs/architecture.md). What a release did is a :class:`ReleaseResult`
(sqlanon/result.py); the ledger's columns are sqlanon/ledger.py's, the
checks before a release sqlanon/validation.py's.

>>> import sqlanon
>>> con = sqlanon.connect()
>>> _ = con.execute("CREATE TABLE src AS SELECT range AS id, range % 7 AS age, 'd' || (range % 4) AS disease FROM range(40)")
>>> pub = sqlanon.Publisher(con, "demo", source="src", id="id", qi=["age"], sa="disease", m=3, seed=1)
>>> r = pub.release()
>>> (r.release, r.published - r.counterfeits, r.new)
(1, 40, 40)
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import asdict, fields

from . import ledger as _ledger
from . import templates, validation
from .engines import as_engine
from .errors import Conflict, ReadOnly, SqlanonError
from .errors import masked as _masked
from .ident import FLOAT_TYPES, INTEGER_TYPES, quote
from .ledger import source_digest, status
from .models import MODELS, OUTPUTS
from .models.base import StepContext
from .profile import PROFILE_LOG, _Profile, _stmt_label
from .project import PRIVATE_SCHEMA, Project, shared_refs
from .result import OPTIONAL, ReleaseResult, share, shares
from .validation import LOG

__all__ = ["Publisher", "ReleaseResult", "share", "shares", "source_digest", "status", "PROFILE_LOG", "LOG",
           "SINGLE_THREAD_ROWS", "QI_RESERVED", "SA_RESERVED"]

QI_RESERVED = ("release", "group_id", "is_counterfeit")
SA_RESERVED = ("release", "group_id", "count", "id", "is_counterfeit")
# the release gate's templates, temporary tables and view (sql/_gate/); a model adds its own
_GATE = ("_gate/presence.sql.j2", "_gate/gate.sql.j2")
_TEMPS = ("gdiff", "gcand", "gnew", "pnew", "mdiff")
# the persons this project shares with other projects (issue 33 item 3)
_SHARED = ("_shared/persons.sql.j2", "_shared/record.sql.j2")
# A source smaller than this runs its release on one DuckDB thread (a release
# starts on one and _validate gives a larger source the threads back): DuckDB
# splits scans by row groups of 122,880 rows, so a source of fewer than two
# gives a second thread nothing to scan, and its coordination costs a fifth of
# a static-Anatomy release of Adult (0.30 s -> 0.24 s, benchmarks/fixed_cost.py).
# The setting is the database's (DuckDB has no per-connection threads): other
# connections to the same database run on one thread while such a release runs;
# it is restored when the release ends, however it ends.
SINGLE_THREAD_ROWS = 2 * 122_880
_TEMP_VIEWS = ("gpres",)  # dropped before the tables they read
_RUNNING: set[int] = set()  # ids of connections running a release (Publisher.release)
_RUNNING_LOCK = threading.Lock()



class Publisher:
    """A release project ``project`` over table ``source`` under ``model`` (a
    name in ``sqlanon.models.MODELS``); ``params`` are the model's parameters:
    the privacy parameter (``m`` or ``l``: the model's first) and the model's
    others, checked by its declaration (``Model.bind``; the default model is
    the registry's first).

    The first :meth:`release` stores the parameters in the project's ledger;
    later Publisher objects for the same project (in this or a later session)
    must pass the same parameters and continue the history."""

    def __init__(self, con: object, project: str, *, source: str, id: str, qi, sa: str,
                 model: str | None = None, output: str = "anatomy", seed: int = 0, templates_dir=None,
                 allow_shared=(), warn_fake: float | None = None, warn_stale: float | None = None,
                 **params) -> None:
        self.engine = as_engine(con)  # a duckdb connection is wrapped (sqlanon.engine)
        self.con = getattr(self.engine, "con", con)
        self.proj = Project(project)
        self.project = project
        self.source, self.id, self.sa = source, id, sa
        self.qi = [qi] if isinstance(qi, str) else list(qi)
        model = next(iter(MODELS)) if model is None else model
        if model not in MODELS:
            raise SqlanonError(f"unknown model {model!r}; use one of {', '.join(MODELS)}")
        self.spec = MODELS[model]
        if output not in OUTPUTS:
            raise SqlanonError(f"unknown output {output!r}; use 'anatomy' or 'generalized'")
        if output not in self.spec.outputs:
            raise SqlanonError(f"model {model!r} publishes only output {', '.join(self.spec.outputs)}, not {output!r}")
        self.values = self.spec.bind(params)  # the model's parameters, checked
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise SqlanonError(f"seed must be a non-negative integer, got {seed!r}")
        self.model, self.output, self.seed = model, output, seed
        # projects whose persons this release may share (an explicit override, recorded in the ledger)
        # (True: any project, e.g. experiments comparing models on one data set)
        if allow_shared is not True:
            allow_shared = [allow_shared] if isinstance(allow_shared, str) else list(allow_shared or ())
            if not all(isinstance(a, str) for a in allow_shared):
                raise SqlanonError(f"allow_shared takes project names (or True: any project), got {allow_shared!r}")
        self.allow_shared = allow_shared
        # thresholds of the fake and stale shares above which a release logs a
        # warning (issue 32); not parameters of the project: they change nothing
        # it publishes, and may change from one release to the next
        for name, v in (("warn_fake", warn_fake), ("warn_stale", warn_stale)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1):
                raise SqlanonError(f"{name} must be a share between 0 and 1 (0.1 = 10%), or None; got {v!r}")
        self.warn_fake, self.warn_stale = warn_fake, warn_stale
        self.m = self.values[self.spec.parameter]  # the privacy parameter (the model's first: m or l)
        if not self.qi:
            raise SqlanonError(f"the QI column list of project {project!r} is empty; name at least one quasi-identifier")
        names = [id, sa, *self.qi]
        dup = sorted({c for c in names if names.count(c) > 1})
        if dup:
            raise SqlanonError(f"column {dup[0]!r} is given twice (id, SA and QI columns must be distinct)")
        # the published tables' own columns (qit: release, group_id; st: + count;
        # membership: + id, is_counterfeit) cannot also be QI or SA columns
        for role, cs, names_taken in (("QI column", self.qi, QI_RESERVED), ("SA column", [sa], SA_RESERVED)):
            taken = [c for c in cs if c.lower() in names_taken]
            if taken:
                raise SqlanonError(f"{role} {taken[0]!r} has the name of a column of the published tables; QI columns "
                                   f"cannot be named {', '.join(QI_RESERVED)} and the SA column not "
                                   f"{', '.join(SA_RESERVED)} (any case); rename it in a view, e.g. CREATE VIEW v AS "
                                   f"SELECT * RENAME ({quote(taken[0])} AS {quote(taken[0] + '_')}) FROM <source>")
        bad = [c for c in names if c.lower().startswith("sqlanon__")]
        if bad:
            raise SqlanonError(f"column {bad[0]!r}: names starting with 'sqlanon__' are reserved; rename the column")
        search = () if self.spec.template_dir is None else (self.spec.template_dir,)  # a model outside the package
        self.env = templates.environment(templates_dir, self.engine.name, search)
        self.pipeline = self.spec.pipeline
        self.tables = self.proj.tables()  # key -> table name (sqlanon.project)

    @classmethod
    def open(cls, con: object, project: str, templates_dir=None, **overrides) -> "Publisher":
        """The publisher of an existing project, with the parameters stored in its
        ledger (``overrides`` must agree with them, else the next release fails)."""
        proj = Project(project)
        if not proj.exists(con, "ledger"):
            raise SqlanonError(f"project {project!r} has no releases in this database; give source, id, qi, sa "
                               "and m for its first release")
        stored = json.loads(as_engine(con).fetch(f"SELECT params FROM {proj.ref('ledger')} ORDER BY release LIMIT 1"
                                                 )[0][0])
        stored.update({k: v for k, v in overrides.items() if v is not None})
        return cls(con, project, templates_dir=templates_dir, **stored)

    # ----------------------------------------------------------------- helpers
    def _q(self, sql: str, params=None) -> list[tuple]:
        return self.engine.fetch(sql, params)

    # during a release's validation: the catalog's (schema, table) names, lower case
    _catalog: set[tuple[str, str]] | None = None

    def _exists(self, key: str) -> bool:
        if self._catalog is not None:
            schema, name = self.proj.place(key)
            return any(n == name.lower() and (schema is None or s == schema.lower()) for s, n in self._catalog)
        return self.proj.exists(self.engine, key)

    def params(self) -> dict:
        """The project's parameters as the ledger stores them (the privacy
        parameter after the model, the model's other parameters last)."""
        k = self.spec.parameter
        return {"source": self.source, "id": self.id, "qi": self.qi, "sa": self.sa, "model": self.model,
                k: self.m, "output": self.output, "seed": self.seed,
                **{n: v for n, v in self.values.items() if n != k}}

    def ledger(self):
        """The project's release ledger as a DataFrame (empty before the first release)."""
        if not self._exists("ledger"):
            return self.engine.df("SELECT NULL::INTEGER AS release WHERE false")
        return self.engine.df(f"SELECT * FROM {self.proj.ref('ledger')} ORDER BY release")

    def last_release(self) -> int:
        if not self._exists("ledger"):
            return 0
        return int(self._q(f"SELECT coalesce(max(release), 0) FROM {self.proj.ref('ledger')}")[0][0])

    def source_unchanged(self) -> bool:
        """Whether the source is as it was at the last release (the same digest
        and row count behind the ledger's fingerprint): the next release would
        publish the same rows again. False before the first release. Reads only."""
        if not self._exists("ledger") or not self._exists("secret"):
            return False
        qi = ", ".join(quote(c) for c in self.qi)
        try:
            digest, rows = self._q(f"SELECT coalesce(bit_xor(hash({quote(self.id)}, {quote(self.sa)}, {qi})), 0), "
                                   f"count({quote(self.id)}) FROM {self._src()}")[0]
        except self.engine.Error:  # no such source or column: the release says what is wrong
            return False
        last = self._q(f"SELECT fingerprint FROM {self.proj.ref('ledger')} ORDER BY release DESC LIMIT 1")
        return bool(last) and self._q(f"SELECT {self._fingerprint()}", [digest, rows])[0][0] == last[0][0]

    def _fingerprint(self) -> str:
        """The ledger's fingerprint of the source, as a scalar subquery with two
        positional parameters (digest, rows): the first 64 bits of
        sha256(project secret : digest : rows), where the digest is the XOR of the
        rows' hash(id, SA, QI). Unkeyed, the XOR of two releases' digests is
        hash(id, old, QI) XOR hash(id, new, QI) when one person changes SA, which
        with the id and QI gives {old, new} away; keyed by a secret that nothing
        published reveals, two fingerprints only say whether the source changed.
        Computed in SQL where the secret is (the secret never passes through a
        statement's text, so a release written out as SQL by sqlanon.compile holds
        no key)."""
        digest = "sha256(key || ':' || CAST(? AS VARCHAR) || ':' || CAST(? AS VARCHAR))"
        return f"(SELECT {self.engine.hex_u64(f'left({digest}, 16)')} FROM {self.proj.ref('secret')})"

    # ---------------------------------------------------------------- locking
    def _busy(self) -> SqlanonError:
        return SqlanonError(f"project {self.project!r} is being released by another connection, cursor or thread "
                            "(or was released since this release began); nothing was written - run the release "
                            "again when the other one has finished")

    def _lock(self) -> None:
        """Take the project's lock row: one row of ``sqlanon_private.<P>__lock`` that every
        release updates first thing in its transaction. DuckDB refuses a second
        transaction's update of a row that another open or since-committed
        transaction updated (a conflict, mapped to :meth:`_busy`), and two first
        releases conflict on creating the table. What this misses - a release
        committed between this one's BEGIN and its first write - is caught by
        :meth:`_check_unchanged` before COMMIT."""
        L = self.proj.ref("lock")
        self.engine.execute(f"CREATE SCHEMA IF NOT EXISTS {quote(PRIVATE_SCHEMA)}")  # private tables (sqlanon.project)
        self.engine.execute(f"CREATE TABLE IF NOT EXISTS {L} (releases BIGINT)")
        self.engine.execute(f"INSERT INTO {L} SELECT 0 WHERE NOT EXISTS (FROM {L})")
        self.engine.execute(f"UPDATE {L} SET releases = releases + 1")

    def _check_unchanged(self, r: int) -> None:
        """Right before COMMIT: the committed ledger (read by a fresh cursor,
        outside this transaction's snapshot) still ends before release ``r``."""
        ledger = f"{quote(self.engine.current_database())}.{self.proj.ref('ledger')}"
        cur = self.engine.cursor()
        try:
            # (a ledger not committed yet is missing for the cursor)
            last = cur.fetch(f"SELECT coalesce(max(release), 0) FROM {ledger}")[0][0]
        except self.engine.MissingTable:
            last = 0
        finally:
            cur.close()
        if last >= r:
            raise self._busy()

    def _src(self) -> str:
        return ".".join(quote(p) for p in self.source.split(".")) if "." in self.source else quote(self.source)

    def _create_tables(self, cols: dict[str, str], existing: set[str]) -> None:
        """Create the project's contract and state tables that are not in
        ``existing`` (the keys the release's catalog read found), through the
        engine. A ledger made now has every column; one made by an earlier
        version gets the columns added since."""
        T = self.proj.refs()
        qi_defs = ", ".join(f"{quote(c)} {cols[c]}" for c in self.qi)
        sa_def = f"{quote(self.sa)} {cols[self.sa]}"
        mask = str(self.env.globals["lib"].mask_type(signed=True)).strip()  # the engine's bit masks (sql/_lib/)
        defs = {
            "qit": f"release INTEGER, group_id BIGINT, {qi_defs}",
            "st": f"release INTEGER, group_id BIGINT, {sa_def}, count BIGINT",
            # intervals of releases (sql/_lib/store.sql.j2, docs/contracts.md)
            "mem": (f"id {cols[self.id]}, group_id BIGINT, is_counterfeit BOOLEAN, {sa_def}, first_release INTEGER, "
                    "last_release INTEGER"),
            "pub": (f"release INTEGER, group_id BIGINT, {', '.join(f'{quote(c)} VARCHAR' for c in self.qi)}, "
                    f"{sa_def}") if self.output == "generalized" else None,
            "groups": f"group_id BIGINT, signature {cols[self.sa]}[], first_release INTEGER",
            # the release gate's private state (sql/_gate/gate.sql.j2, docs/threat_model.md)
            "chains": f"id {cols[self.id]}, cmask {mask}, chain {mask}[], exposed BOOLEAN, pinned BOOLEAN",
            "vals": f"{sa_def}, pos INTEGER",
            "held": f"release INTEGER, id {cols[self.id]}, {sa_def}",
            "persons": f"sqlanon__id {cols[self.id]}, {qi_defs}",
            "gone": f"release INTEGER, id {cols[self.id]}",
            "ledger": _ledger.definition(),
            # the fingerprint's key: a random secret made once per project (private)
            "secret": "key VARCHAR",
        }
        for key, columns in defs.items():
            if columns is not None and key not in existing:
                self.engine.execute(f"CREATE TABLE IF NOT EXISTS {T[key]} ({columns})")
        # every release: a secret table left empty gets its key
        self.engine.execute(f"INSERT INTO {T['secret']} SELECT $key WHERE NOT EXISTS (FROM {T['secret']})",
                            {"key": secrets.token_hex(32)})
        if "ledger" in existing:
            for c, t in _ledger.ADDED:
                self.engine.execute(f"ALTER TABLE {T['ledger']} ADD COLUMN IF NOT EXISTS {c} {t}")

    # ----------------------------------------------------------------- release
    def _context(self, cols: dict[str, str]) -> dict:
        temps = self.spec.temps + self.spec.temp_views + _TEMPS + _TEMP_VIEWS
        T = self.proj.refs() | {k: quote(self.proj.temp(k)) for k in temps}
        # numeric QI (macro sqlanon__numeric_type, the one definition) get ranges, the others value sets
        try:
            numeric = self._q(f"SELECT {', '.join('sqlanon__numeric_type(?)' for _ in self.qi)}",
                              [cols[c] for c in self.qi])[0]
        except self.engine.MissingMacro as exc:
            raise SqlanonError(f"cannot release project {self.project!r}: this connection lacks sqlanon's macros; "
                               "open it with sqlanon.connect() or call sqlanon.install(con) first; nothing was "
                               "written") from exc
        return {
            "T": T, "source": self._src(), "id": quote(self.id), "sa": quote(self.sa),
            "qi": [quote(c) for c in self.qi],
            "qi_info": [(quote(c), bool(n)) for c, n in zip(self.qi, numeric)],
            "generalized": self.output == "generalized",
            # the id is an integer: the portable hash reads its value (sql/_lib/hash.sql.j2)
            "id_integer": cols[self.id].upper() in INTEGER_TYPES,
            # a FLOAT or DOUBLE SA: -0.0 and NaN's spellings canonicalised (sql/_lib/values.sql.j2)
            "sa_float": cols[self.sa].upper() in FLOAT_TYPES,
            **dict(self.spec.context),
        }

    def _render_macro(self, template: str, macro: str, *args) -> str:
        """SQL from Jinja macro ``macro`` of ``template`` (a hook's :meth:`StepContext.render`)."""
        return templates.render_macro(self.env, template, macro, *args)

    def _execute(self, name: str, stmt: str, params: dict) -> list[tuple]:
        """One statement of template ``name``, its rows; a database error becomes
        our error without the data values it may quote."""
        try:
            return self.engine.fetch(stmt, templates.params_for(stmt, params))
        except self.engine.Error as exc:
            raise SqlanonError(f"release {params['release']} of project {self.project!r} failed in template {name}: "
                               f"{_masked(exc)}; nothing was written") from exc

    def _run_marked(self, name: str, ctx: dict, params: dict, prof: "_Profile") -> tuple | None:
        """Run template ``name``, a profile mark after each statement; the first
        row of its last statement."""
        rows: list[tuple] = []
        step = name.split("/")[-1].split(".")[0]
        for i, stmt in enumerate(templates.render(self.env, name, ctx, vary=self.proj.placeholders()), 1):
            rows = self._execute(name, stmt, params)
            prof.mark(_stmt_label(step, i, stmt))
        return rows[0] if rows else None

    def _gate(self, ctx: dict, params: dict, prof: "_Profile") -> int:
        """The release gate (docs/threat_model.md): the release, with every earlier
        one, against the adversary of SPEC §6b; refuses the release when any
        person's candidate SA set falls to 1..m-1 values."""
        (same,) = self._run_marked(_GATE[0], ctx, params, prof)
        exposed, disclosed = self._run_marked(_GATE[1], ctx | {"presence_same": bool(same)}, params, prof)
        if exposed and not self.spec.refuses(self.values):
            return int(exposed)  # an explicitly unsafe choice: committed, its exposure reported
        if exposed:
            k = self.spec.parameter
            raise SqlanonError(
                f"release {params['release']} of project {self.project!r} refused by the release gate: "
                f"{exposed} persons would be narrowed to fewer than {k} = {self.m} SA values by an adversary "
                f"holding every release (linking by QI, reading absence), {disclosed} of them to one value; "
                f"nothing was written. Lower {k}, or release after more of the source has changed "
                "(docs/threat_model.md)")
        return 0

    def _shared(self, ctx: dict, r: int, prof: "_Profile") -> str | None:
        """Projects that share persons (issue 33 item 3, sql/_shared/): this
        release's persons new to the project, as keyed digests, against the ones
        every other project of the database (dropped ones included, until purged)
        had. A model that refuses unsafe releases refuses one that shares persons
        with a project not named in ``allow_shared`` (True: any): an adversary holding both
        projects' releases intersects them, and the gate sees only this project's.
        Records the digests; returns what is shared (JSON, for the ledger) or None."""
        ctx = ctx | {"R": shared_refs()}
        # the database's digest key (made once): 128 random bits as 32 hex digits,
        # so that key, ':' and an integer id fit one md5 block (55 bytes; a
        # 64-digit key took two: 1M ids 0.31 -> 0.22 s CPU)
        params = {"release": r, "project": self.project, "persons_key": secrets.token_hex(16)}
        rows: list[tuple] = []
        for i, stmt in enumerate(templates.render(self.env, _SHARED[0], ctx, vary=self.proj.placeholders()), 1):
            rows = self._execute(_SHARED[0], stmt, params)
            prof.mark(_stmt_label("persons", i, stmt))
        allowed = None if self.allow_shared is True else {a.lower() for a in self.allow_shared}
        refused = [(p, inst, n) for p, inst, n in rows if allowed is not None and p.lower() not in allowed]
        if refused and self.spec.refuses(self.values):
            raise SqlanonError(self._shared_message(r, refused))
        for i, stmt in enumerate(templates.render(self.env, _SHARED[1], ctx, vary=self.proj.placeholders()), 1):
            self._execute(_SHARED[1], stmt, params)
            prof.mark(_stmt_label("record", i, stmt))
        return json.dumps({p: int(n) for p, _, n in rows}) if rows else None

    def _shared_message(self, r: int, shared: list[tuple]) -> str:
        """The refusal of a release that shares persons with other projects:
        each project named (whether its tables are still there), the counts,
        and the three ways on (no id, no value)."""
        md5 = self.env.globals["lib"].md5_60("'instance:' || key")
        parts, live = [], []
        for name, instance, n in shared:
            other = Project(name)
            now = (self._q(f"SELECT {md5} FROM {other.ref('secret')}")
                   if name.lower() != self.project.lower() and other.exists(self.engine, "secret") else [])
            if now and now[0][0] == instance:
                parts.append(f"{n} with project {name!r}")
                live.append(name)
            else:
                parts.append(f"{n} with {'an earlier' if name.lower() == self.project.lower() else 'a'} project "
                             f"{name!r} whose tables were dropped (the database remembers its persons)")
        names = [name for name, _, _ in shared]
        cont = (f"continue project {live[0]!r} instead of starting this one (release it again with its own "
                "parameters); " if live else "")
        return (f"release {r} of project {self.project!r} refused: its source holds persons that other projects of "
                f"this database have released ({'; '.join(parts)}). An adversary holding both projects' releases "
                f"intersects them, and this project's release gate sees only its own (docs/threat_model.md, "
                f"\"Projects that share persons\"); nothing was written. Choose one: {cont}"
                f"or, if no release of {names[0]!r} was ever given out, purge it: `sqlanon purge {names[0]} --db FILE` "
                f"(Python: sqlanon.project.purge(con, {names[0]!r})) drops its tables and forgets its persons, but "
                "copies of its releases exported or copied elsewhere stay with whoever holds them; or accept the risk "
                f"for these persons: `--allow-shared {names[0]}` (Python: allow_shared=[{names[0]!r}]), recorded in "
                "this project's ledger (also the way when the same ids are different persons)")

    def _result(self, r: int, stats: dict | None, seconds: float, exposed: int) -> ReleaseResult:
        """The release's result from the stats step's named columns."""
        allowed = ({f.name for f in fields(ReleaseResult)} - {"release", "seconds", "unsafe_baseline", "exposed"}
                   - set(OPTIONAL) | set(self.spec.result_fields))  # the counts of every model, and the model's own
        if stats is None or set(stats) - allowed:
            raise SqlanonError(f"model {self.model!r}: step {self.spec.stats_step} must return one row with columns "
                               f"named like ReleaseResult's fields ({', '.join(sorted(allowed))}); got "
                               f"{sorted(stats or [])}")
        counts = {k: float(v) if k == "ncp" else int(v) for k, v in stats.items()}
        result = ReleaseResult(release=r, seconds=seconds, unsafe_baseline=self.spec.unsafe_baseline,
                               exposed=exposed, **counts)
        object.__setattr__(result, "shown", tuple(self.spec.result_fields))  # (ReleaseResult.shown)
        return result

    def release(self) -> ReleaseResult:
        """Make the next release in one transaction; on any error nothing is written."""
        # one release at a time per connection object: DuckDB's Python connection
        # is not safe to share between threads (other connections and cursors are
        # kept apart by the project's lock row, see _lock)
        with _RUNNING_LOCK:
            if id(self.con) in _RUNNING:
                raise SqlanonError(f"cannot start release of project {self.project!r}: this connection is running a "
                                   "release in another thread; give each thread its own cursor (con.cursor())")
            _RUNNING.add(id(self.con))
        try:
            return self._release_once()
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(id(self.con))

    def _release_once(self) -> ReleaseResult:
        t0 = time.perf_counter()
        prof = _Profile()
        # the engine's settings for a release (DuckDB: insertion order kept for
        # step 8's positions; a small source on one thread, see SINGLE_THREAD_ROWS)
        with self.engine.release_scope(lambda: self._reaches(SINGLE_THREAD_ROWS)):
            return self._release(t0, prof)

    def _reaches(self, rows: int) -> bool:
        """Whether the source has at least ``rows`` rows (False when it cannot be read)."""
        try:
            return bool(self._q(f"SELECT 1 FROM {self._src()} LIMIT 1 OFFSET {rows - 1}"))
        except self.engine.Error:
            return False

    def _release(self, t0: float, prof: "_Profile") -> ReleaseResult:
        try:
            self.engine.begin()
        except self.engine.Error as exc:
            raise SqlanonError(f"cannot start release of project {self.project!r}: this connection already has an "
                               "open transaction (another release running on it, or an uncommitted BEGIN); commit "
                               "or roll it back, and give each thread its own cursor (con.cursor())") from exc
        try:
            self._lock()
            # one catalog read for the existence checks of the validation (nothing
            # is created until _create_tables)
            if self.proj.legacy_tables(self.engine):
                raise self.proj.legacy_error()
            self.proj.check_shape(self.engine)
            self._catalog = {(s.lower(), n.lower()) for s, n in self.engine.schema_relations()}
            cols = validation.validate(self)
            ctx = self._context(cols)
            r = self.last_release() + 1
            ctx["first_release"] = r == 1
            prof.mark("validate, source fingerprint")
            existing = {k for k in self.tables if self._exists(k)}
            self._catalog = None
            self._create_tables(cols, existing)
            prof.mark("create tables")
            shared = self._shared(ctx, r, prof)
            gid = self._q(f"SELECT coalesce(max(group_id), 0) + 1 FROM {ctx['T']['groups']}")[0][0]
            params = {"release": r, "prev": r - 1, "seed": self.seed, "m": self.m, "l": self.m, "next_gid": gid,
                      "sa_name": self.sa,
                      "max_sa_values": min(self.spec.max_sa_values or self.engine.signature_values,
                                           self.engine.signature_values)}
            prof.mark("next group id")
            stats = None
            names = templates.steps(self.env, self.pipeline, self.spec.extends)
            for name in names:
                step = name.split("/")[-1].split(".")[0]
                hook = self.spec.hooks.get(step)
                if hook is not None:
                    hook(StepContext(engine=self.engine, values=self.values, release=r, params=params, ctx=ctx,
                                     cols=cols, sa=self.sa, seed=self.seed, parameter=self.spec.parameter,
                                     render_macro=self._render_macro))
                    prof.mark(f"{self.model} hook before {step}")
                for i, stmt in enumerate(templates.render(self.env, name, ctx, vary=self.proj.placeholders()), 1):
                    rows = self._execute(name, stmt, params)
                    if step == self.spec.stats_step:
                        stats = dict(zip(self.engine.last_columns(), rows[0]))
                    prof.mark(_stmt_label(step, i, stmt))
            exposed = self._gate(ctx, params, prof)
            seconds = time.perf_counter() - t0
            result = self._result(r, stats, seconds, exposed)
            # provenance: the package version and the sha256 of every template this release rendered
            sha, overridden = templates.hashes(self.env, [*names, *_GATE, *_SHARED])
            self.engine.execute(_ledger.insert(ctx["T"]["ledger"], self._fingerprint()),
                                _ledger.row(r, self.params(), cols, self._digest, self._rows, asdict(result), sha,
                                            overridden, shared))
            self.engine.drop_temporary([self.proj.temp(k) for k in self.spec.temp_views + _TEMP_VIEWS
                                        + self.spec.temps + _TEMPS])
            self._check_unchanged(r)
            self.engine.commit()
            prof.mark("ledger, drop temps, COMMIT")
        except BaseException as exc:
            self._catalog = None
            try:
                self.engine.rollback()
            except self.engine.Error:  # a COMMIT that failed has rolled back already
                pass
            typed = self.engine.typed(exc)  # (an error of a hook's raw connection too)
            if isinstance(typed, Conflict):
                raise self._busy() from exc
            if isinstance(typed, ReadOnly):
                raise SqlanonError(f"cannot release project {self.project!r}: the database is open read-only; "
                                   "open it read-write; nothing was written") from exc
            raise
        prof.report(f"project {self.project!r} release {r}")
        self._warn_shares(result)
        return result

    def _warn_shares(self, result: ReleaseResult) -> None:
        """Log a warning when the release's fake or stale share is above the
        threshold the user set, with the share of the release before (the trend)."""
        checks = [("counterfeits", "of the published rows", result.fake_share, self.warn_fake, "fake_share"),
                  ("stale rows", "of the source's persons", result.stale_share, self.warn_stale, "stale_share")]
        checks = [c for c in checks if c[3] is not None and c[2] > c[3]]
        if not checks:
            return
        before = shares(status(self.con, self.project))
        before = before[before["release"] == result.release - 1]
        for what, of, value, limit, col in checks:
            trend = ""
            if not before.empty:
                was = float(before[col].iloc[0])
                trend = f" (release {result.release - 1}: {was:.1%}, {100 * (value - was):+.1f} points)"
            LOG.warning(f"project {self.project!r} release {result.release}: {what} are {value:.1%} {of}, above "
                        f"warn_{col.split('_')[0]} = {limit:.0%}{trend}; docs/threat_model.md (\"What is left\") "
                        "says where they come from and what lowers them")

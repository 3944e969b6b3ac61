"""Every template as the library renders it: real releases of every model and
output (first and later releases), the audit, the
sliced form and the static anonymizer, over a small table whose QI give every branch (a numeric
QI, a categorical one with a value mask, one with too many values for a mask).
Each call of ``sqlanon.templates.render`` is recorded; the statements come
back as (template name, statement) pairs, without repeats."""

from __future__ import annotations

import sqlanon
from sqlanon import templates
from sqlanon.slicing import sliced

CONFIGS = [  # name, Publisher keywords
    ("minv_anat", dict(model="m-invariance", m=3, output="anatomy")),
    ("minv_gen", dict(model="m-invariance", m=3, output="generalized")),
    ("minv_random", dict(model="m-invariance", m=3, eligibility="random")),
    ("dyn", dict(model="dynamic-anatomy", l=3)),
    ("static", dict(model="anatomy", l=3)),
    ("sliced", dict(model="sliced-bucket", m=3)),
    ("unprotected", dict(model="unprotected", m=3)),
]
QI = ["age", "city", "code"]

_SOURCE = """
CREATE OR REPLACE TABLE src AS
SELECT range AS id, 20 + range % 37 AS age, 'c' || (range % 9) AS city, 'k' || (range % 211) AS code,
       'd' || ((range * 7 + $r * (range % 5 = 0)::INTEGER) % 6) AS disease
FROM range(($r - 1) * 40, 400 + ($r - 1) * 40)
"""


def collect(calls: list | None = None) -> list[tuple[str, str]]:
    """The (template, statement) pairs; ``calls``, if given, gets every render
    call's (template, context, keywords), to render them again for another
    engine."""
    seen: dict[tuple[str, str], None] = {}
    real, real_macro = templates.render, templates.render_macro

    def recording(env, name, context, **kw):
        stmts = real(env, name, context, **kw)
        for s in stmts:
            seen.setdefault((name, s), None)
        if calls is not None:
            calls.append((name, dict(context), dict(kw)))
        return stmts

    def recording_macro(env, name, macro, *args):
        stmt = real_macro(env, name, macro, *args)
        if stmt.strip().upper().startswith(("SELECT", "INSERT", "CREATE", "WITH")):  # (a hook's filter: a fragment)
            seen.setdefault((name, stmt), None)
            if calls is not None:
                calls.append((name, {_MACRO: (macro, args)}, {}))
        return stmt

    templates.render, templates.render_macro = recording, recording_macro
    try:
        for name, kw in CONFIGS:
            con = sqlanon.connect()
            try:
                for r in (1, 2, 3):
                    con.execute(_SOURCE, {"r": r})
                    sqlanon.Publisher(con, "p", source="src", id="id", qi=QI, sa="disease", seed=5, **kw).release()
                sqlanon.audit(con, "p", 3).close()
                if name == "sliced":  # seed 003's sliced form of a release, both ways
                    for generalize in (False, True):
                        sliced(con, "p", release=2, generalize=generalize)
            finally:
                con.close()
        con = sqlanon.connect()
        try:
            con.execute(_SOURCE, {"r": 1})
            sqlanon.anonymize(con, "src", qi=["age", "city"], sa="disease", k=5, l=2, output="o1")
            sqlanon.anonymize(con, "src", qi=["age", "city"], sa="disease", k=5, t=0.6, output="o2")
            sqlanon.anonymize(con, "src", qi=["age", "city"], k=5, strict=False, output="o3")
        finally:
            con.close()
    finally:
        templates.render, templates.render_macro = real, real_macro
    return list(seen)


_MACRO = "(a hook's macro)"


def render_again(env, name: str, context: dict, kw: dict) -> list[str]:
    """The statements of a call :func:`collect` recorded, rendered in ``env``
    (another engine's): a step's template, or a hook's macro."""
    if _MACRO in context:
        macro, args = context[_MACRO]
        return [templates.render_macro(env, name, macro, *args)]
    return templates.render(env, name, context, **kw)

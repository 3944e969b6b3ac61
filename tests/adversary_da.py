"""A slow, obvious reference adversary of SPEC §6b for anatomized releases
(used for dynamic Anatomy; pure Python, brute force, small histories).

What it knows, per release r (0-based list index; releases 1, 2, ... in order):
* the published QI table and sensitive table: ``qit[r]`` rows
  ``(group_id, qi_tuple)`` and ``st[r]`` rows ``(group_id, sa, count)``;
* who is in the source and with which exact QI: ``presence[r]`` maps
  ``id -> (qi_tuple, true_sa)``. The true SA is NOT used for inference; it
  is only needed to build the default absence candidates below and to report
  whether an inferred set holds the person's real value;
* ``absent[r]`` (optional): the values the algorithm suppresses / holds back
  at release r. A present person whose QI tuple matches no group of release r
  was suppressed, and its candidates that time are ``absent[r]``. If not
  given, the strongest choice computable from the inputs is used: the true SA
  values of every present person with no QI match at r.

Inference: the candidates of person p at release r are the union of the SA
values of every group whose QI table holds p's exact QI tuple, or the absence
candidates if no group does. Across releases it intersects the candidates of
the releases in which p is in the source, starting at every release s and
stopping at every later release e (an update it suspects restarts the
intersection). The result per person is the smallest NON-EMPTY intersection
size over all (s, e); SPEC §6b calls a person narrowed when that size is
1..l-1.
"""

from __future__ import annotations

from collections import defaultdict


def candidates(qit_rows, st_rows, present, absent_values=None):
    """Candidates per present person for one release: id -> frozenset."""
    values = defaultdict(set)
    for g, v, _n in st_rows:
        values[g].add(v)
    groups_of = defaultdict(set)
    for g, q in qit_rows:
        groups_of[tuple(q)].add(g)
    if absent_values is None:
        absent_values = {sa for q, sa in present.values() if not groups_of.get(tuple(q))}
    out = {}
    for pid, (q, _sa) in present.items():
        gs = groups_of.get(tuple(q))
        out[pid] = frozenset().union(*(values[g] for g in gs)) if gs else frozenset(absent_values)
    return out


def narrowest(qit, st, presence, absent=None):
    """Per person: ``(size, start, end, values, true_values_inside)`` of its
    smallest non-empty intersection over every run of releases ``start..end``
    (0-based, releases where it is absent from the source skipped); persons
    whose every intersection is empty are left out. ``true_values_inside`` is
    True when the set holds a value the person really had in that run."""
    n = len(qit)
    cand = [candidates(qit[r], st[r], presence[r], None if absent is None else absent[r]) for r in range(n)]
    ids = set().union(*(p.keys() for p in presence)) if presence else set()
    best = {}
    for pid in ids:
        rel = [r for r in range(n) if pid in presence[r]]
        for i, s in enumerate(rel):
            acc = None
            for e in rel[i:]:
                acc = cand[e][pid] if acc is None else acc & cand[e][pid]
                if not acc:
                    break
                if pid not in best or len(acc) < best[pid][0]:
                    had = {presence[r][pid][1] for r in rel if s <= r <= e}
                    best[pid] = (len(acc), s, e, acc, bool(had & acc))
    return best


def narrowed(best, l):
    """The persons narrowed to 1..l-1 values: id -> size."""
    return {pid: b[0] for pid, b in best.items() if 0 < b[0] < l}


def read_history(con, project, sources, qi, sa, id="id"):
    """The inputs of :func:`narrowest` for ``project``: ``sources[r]`` is the
    source as it was at release r+1 (a list of rows ``(id, *qi, sa)``); the
    published tables are read through the contract macros. Also returns the
    values the publisher suppressed per release (persons in the source whose
    current tuple is not published), from the private membership."""
    qit, st, presence, suppressed = [], [], [], []
    cols = ", ".join(qi)
    for r, rows in enumerate(sources, 1):
        qit.append([(g, tuple(q)) for g, *q in con.execute(
            f"SELECT group_id, {cols} FROM sqlanon_published_qit(?, ?)", [project, r]).fetchall()])
        st.append(con.execute(f"SELECT group_id, {sa}, count FROM sqlanon_published_st(?, ?)",
                              [project, r]).fetchall())
        pres = {row[0]: (tuple(row[1:-1]), row[-1]) for row in rows}
        presence.append(pres)
        mem = {i: v for i, v in con.execute(f"SELECT id, {sa} FROM sqlanon_membership(?, ?)",
                                            [project, r]).fetchall()}
        suppressed.append({v for i, (q, v) in pres.items() if mem.get(i) != v})
    return qit, st, presence, suppressed

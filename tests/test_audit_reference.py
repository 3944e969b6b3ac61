"""An independent brute-force adversary in pure Python (small tables), checked
row for row against the audit macros on random release histories (hypothesis).

The reference works on plain lists, sets and Counters and shares no code with
the SQL; it follows the definitions written in docs/audit.md."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


# ============================================================ random histories


@st.composite
def membership_histories(draw):
    """Rows (release, id, group_id, is_counterfeit, sa) of 1-4 releases."""
    n_persons = draw(st.integers(1, 7))
    n_releases = draw(st.integers(1, 4))
    sa_dom = ["a", "b", "c", "d", "e"]
    base = {p: draw(st.sampled_from(sa_dom)) for p in range(1, n_persons + 1)}
    rows = []
    for r in range(1, n_releases + 1):
        for p in range(1, n_persons + 1):
            if draw(st.integers(0, 3)) == 0:
                continue  # absent
            if draw(st.integers(0, 4)) == 0:
                base[p] = draw(st.sampled_from(sa_dom))  # update, kept afterwards
            rows.append((r, p, draw(st.integers(1, 3)), False, base[p]))
        for _ in range(draw(st.integers(0, 2))):
            rows.append((r, None, draw(st.integers(1, 3)), True, draw(st.sampled_from(sa_dom))))
    return rows


def _load_membership(con, rows):
    con.execute("DROP TABLE IF EXISTS sqlanon_private.h_membership; DROP TABLE IF EXISTS sqlanon_h_st")
    con.execute(
        "CREATE SCHEMA IF NOT EXISTS sqlanon_private; CREATE TABLE sqlanon_private.h_membership(release INTEGER, id INTEGER, group_id BIGINT, is_counterfeit BOOLEAN, sa VARCHAR)"
    )
    if rows:
        con.executemany("INSERT INTO sqlanon_private.h_membership VALUES (?, ?, ?, ?, ?)", [list(r) for r in rows])
    con.execute(
        "CREATE TABLE sqlanon_h_st AS SELECT release, group_id, sa, count(*) AS count FROM sqlanon_private.h_membership GROUP BY ALL"
    )


# ============================================================ reference: signatures


def ref_signatures(rows):
    groups = defaultdict(Counter)
    for r, _, g, _, sa in rows:
        groups[(r, g)][sa] += 1
    sig = {k: sorted(v) for k, v in groups.items()}
    persons = {(r, i): (g, sa) for r, i, g, cf, sa in rows if i is not None and not cf}
    return groups, sig, persons


def ref_history(rows):
    _, sig, persons = ref_signatures(rows)
    return sorted((i, r, g, sig[(r, g)]) for (r, i), (g, _) in persons.items())


def ref_release_diff(rows, a, b):
    _, _, persons = ref_signatures(rows)
    ids = {i for (r, i) in persons}
    out = []
    for i in sorted(ids):
        ina, inb = (a, i) in persons, (b, i) in persons
        if ina and inb:
            out.append((i, "survivor" if persons[(a, i)][1] == persons[(b, i)][1] else "updated"))
        elif ina:
            out.append((i, "deleted"))
        elif inb:
            earlier = any((r, i) in persons for r in range(-100, a))
            out.append((i, "reinserted" if earlier else "new"))
    return out


def ref_signature_violations(rows, m):
    groups, sig, persons = ref_signatures(rows)
    rels = sorted({r for r, _ in groups})
    out = []
    for x, y in zip(rels, rels[1:]):
        for (r, i), (g, sa) in persons.items():
            if r != x or (y, i) not in persons:
                continue
            g2, sa2 = persons[(y, i)]
            s1, s2 = sig[(x, g)], sig[(y, g2)]
            if s1 != s2 and not (sa != sa2 and not set(s1) & set(s2)):
                out.append((i, "signature_changed", x, y, s1, s2))
    for (r, i), (g, _) in persons.items():
        c = groups[(r, g)]
        if len(c) < m or max(c.values()) > 1:
            out.append((i, "not_m_unique", r, r, sig[(r, g)], sig[(r, g)]))
    return sorted(out)


def ref_collusion(rows, m):
    _, sig, persons = ref_signatures(rows)
    per = defaultdict(lambda: defaultdict(list))
    for (r, i), (g, _) in sorted(persons.items()):
        per[i][tuple(sig[(r, g)])].append(r)
    out = []
    for i, sigs in per.items():
        for (s1, r1), (s2, r2) in itertools.permutations(sigs.items(), 2):
            common = sorted(set(s1) & set(s2))
            if min(r1) < min(r2) and 1 <= len(common) <= m - 1:
                out.append((i, sorted(r1), sorted(r2), list(s1), list(s2), common))
    return sorted(out)


def ref_intersection(rows, m):
    _, sig, persons = ref_signatures(rows)
    out = []
    for i in sorted({i for (_, i) in persons}):
        rels = sorted(r for (r, j) in persons if j == i)
        cand = set.intersection(*(set(sig[(r, persons[(r, i)][0])]) for r in rels))
        if 1 <= len(cand) <= m - 1:
            true_sa = persons[(rels[-1], i)][1]
            out.append((i, rels, len(rels), sorted(cand), len(cand), len(cand) == 1, true_sa in cand))
    return out


@settings(max_examples=60)
@given(rows=membership_histories(), m=st.integers(2, 4))
def test_history_macros_match_reference(con, rows, m):
    _load_membership(con, rows)
    got = con.execute("SELECT id, release, group_id, signature FROM sqlanon_signature_history('h') ORDER BY ALL").fetchall()
    assert got == ref_history(rows)
    rels = sorted({r[0] for r in rows})
    for a, b in itertools.combinations(rels, 2):
        got = con.execute("SELECT * FROM sqlanon_release_diff('h', ?, ?)", [a, b]).fetchall()
        assert got == ref_release_diff(rows, a, b), (a, b)
    got = con.execute("SELECT * FROM sqlanon_signature_violations('h', ?) ORDER BY ALL", [m]).fetchall()
    assert got == ref_signature_violations(rows, m)
    got = con.execute("SELECT * FROM sqlanon_collusion_violations('h', ?) ORDER BY ALL", [m]).fetchall()
    assert got == ref_collusion(rows, m)
    got = con.execute("SELECT * FROM sqlanon_intersection_attack('h', ?)", [m]).fetchall()
    assert got == ref_intersection(rows, m)


# ============================================================ reference: comparison attacks


@st.composite
def anatomy_histories(draw):
    """{release: [(group_id, (age, sex), sa)]}: each release derived from the
    previous one by deletions, insertions, moves and SA updates."""
    ages, sexes, sas = [30, 31, 32, 33], ["F", "M"], ["a", "b", "c", "d"]
    rec = st.tuples(st.sampled_from(ages), st.sampled_from(sexes))
    cur = [(draw(st.integers(1, 3)), draw(rec), draw(st.sampled_from(sas))) for _ in range(draw(st.integers(2, 8)))]
    hist = {1: cur}
    for r in range(2, draw(st.integers(2, 4)) + 1):
        nxt = []
        regroup = draw(st.booleans())  # re-partition everything: the merged/split attacks
        for g, q, s in cur:
            if regroup:
                g = draw(st.integers(1, 3))
            op = draw(st.integers(0, 9))
            if op == 0:
                continue  # delete
            if op == 1:
                g = draw(st.integers(1, 4))  # move
            if op == 2:
                s = draw(st.sampled_from(sas))  # update
            nxt.append((g, q, s))
        for _ in range(draw(st.integers(0, 2))):
            nxt.append((draw(st.integers(1, 4)), draw(rec), draw(st.sampled_from(sas))))
        hist[r] = nxt
        cur = nxt
    return hist


def _qi_text(q):
    return "(" + ", ".join(str(v) for v in q) + ")"


def ref_comparisons(hist, l):
    out = []
    rels = sorted(r for r in hist if hist[r])
    for ro, rn in zip(rels, rels[1:]):
        sides = {}
        for side, recs in (("old", hist[ro]), ("new", hist[rn])):
            cnt = Counter(q for _, q, _ in recs)
            # a record is linkable by its QI only when the QI is unique in its release
            sides[side] = [(g, (q if cnt[q] == 1 else (side, n)), q, s) for n, (g, q, s) in enumerate(recs)]
        keys = {side: {k for _, k, _, _ in recs} for side, recs in sides.items()}
        gk = {side: defaultdict(Counter) for side in sides}
        gs = {side: defaultdict(Counter) for side in sides}
        qtext = {}
        for side, recs in sides.items():
            for g, k, q, s in recs:
                gk[side][g][k] += 1
                gs[side][g][s] += 1
                qtext[k] = _qi_text(q)
        edges = {(p, g) for p in gk["old"] for g in gk["new"] if set(gk["old"][p]) & set(gk["new"][g])}
        nb_old, nb_new = defaultdict(set), defaultdict(set)
        for p, g in edges:
            nb_old[p].add(g)
            nb_new[g].add(p)
        cands = set()
        for p, g in edges:
            cands.add((frozenset([p]), frozenset([g])))
        for p, gs_ in nb_old.items():
            cands.add((frozenset([p]), frozenset(gs_)))
        for g, ps in nb_new.items():
            cands.add((frozenset(ps), frozenset([g])))
        seen = set()
        for p0 in nb_old:  # connected components by breadth-first search
            if p0 in seen:
                continue
            A, B, todo = {p0}, set(), [("old", p0)]
            while todo:
                side, x = todo.pop()
                for y in (nb_old[x] if side == "old" else nb_new[x]):
                    tgt = B if side == "old" else A
                    if y not in tgt:
                        tgt.add(y)
                        todo.append(("new" if side == "old" else "old", y))
            seen |= A
            cands.add((frozenset(A), frozenset(B)))
        for A, B in cands:
            ka = sum((gk["old"][p] for p in A), Counter())
            kb = sum((gk["new"][g] for g in B), Counter())
            a_in_b = all(kb[k] >= c for k, c in ka.items())
            b_in_a = all(ka[k] >= c for k, c in kb.items())
            if not (a_in_b or b_in_a):
                continue
            sa_a = sum((gs["old"][p] for p in A), Counter())
            sa_b = sum((gs["new"][g] for g in B), Counter())
            plus, minus = sorted(sa_b - sa_a), sorted(sa_a - sa_b)
            ga, gb = sorted(A), sorted(B)
            if a_in_b and b_in_a:
                if not (plus or minus) or not (1 <= len(plus) < l or 1 <= len(minus) < l):
                    continue
                attack, targets = "SVM", sorted(qtext[k] for k in set(ka) | set(kb))
                n, inferred, before, direction = sum((sa_b - sa_a).values()), plus, minus, "update"
            elif a_in_b:
                if not 1 <= len(plus) < l:
                    continue
                extra = kb - ka
                moved = any(k in keys["old"] for k in extra)
                attack = "partition changing" if moved else ("iFRCA" if len(A) == len(B) == 1 else "iMRCA" if len(A) == 1 else "iMRcMLA")
                targets, n, inferred, before, direction = sorted(qtext[k] for k in extra), sum(extra.values()), plus, None, "insert"
            else:
                if not 1 <= len(minus) < l:
                    continue
                extra = ka - kb
                moved = any(k in keys["new"] for k in extra)
                attack = "partition changing" if moved else ("dFLCA" if len(A) == len(B) == 1 else "dMLCA" if len(B) == 1 else "dMLcMRA")
                targets, n, inferred, before, direction = sorted(qtext[k] for k in extra), sum(extra.values()), minus, None, "remove"
            out.append((attack, ro, rn, ga, gb, direction, targets, n, inferred, before))
    return sorted(out, key=repr)


def _load_anatomy(con, hist):
    con.execute("DROP TABLE IF EXISTS sqlanon_a_qit; DROP TABLE IF EXISTS sqlanon_a_st")
    con.execute("CREATE TABLE sqlanon_a_qit(release INTEGER, group_id BIGINT, age INTEGER, sex VARCHAR)")
    con.execute("CREATE TABLE sqlanon_a_st(release INTEGER, group_id BIGINT, disease VARCHAR, count BIGINT)")
    qit, sts = [], []
    for r, recs in hist.items():
        for g, (age, sex), _ in recs:
            qit.append([r, g, age, sex])
        for (g, s), c in Counter((g, s) for g, _, s in recs).items():
            sts.append([r, g, s, c])
    if qit:
        con.executemany("INSERT INTO sqlanon_a_qit VALUES (?, ?, ?, ?)", qit)
        con.executemany("INSERT INTO sqlanon_a_st VALUES (?, ?, ?, ?)", sts)


@settings(max_examples=80)
@given(hist=anatomy_histories(), l=st.integers(2, 3))
def test_comparison_attacks_match_reference(con, hist, l):
    _load_anatomy(con, hist)
    got = con.execute("SELECT * FROM sqlanon_comparison_attacks('a', ?)", [l]).fetchall()
    assert sorted(got, key=repr) == ref_comparisons(hist, l)


@pytest.mark.slow
@settings(max_examples=300)
@given(hist=anatomy_histories(), l=st.integers(2, 3))
def test_comparison_attacks_match_reference_many(con, hist, l):
    _load_anatomy(con, hist)
    got = con.execute("SELECT * FROM sqlanon_comparison_attacks('a', ?)", [l]).fetchall()
    assert sorted(got, key=repr) == ref_comparisons(hist, l)


def test_reference_agrees_on_the_paper_example(con):
    """The reference itself reproduces seed 004 §3.4 (so it is not vacuous)."""
    t6 = [(1, (45, "M"), "Flu"), (1, (46, "M"), "Fever"), (1, (47, "M"), "Cancer"), (1, (48, "M"), "Cancer")]
    t9 = t6[:3] + [(2, (48, "M"), "Cancer"), (2, (49, "M"), "Cancer"), (2, (50, "M"), "HIV"), (2, (51, "M"), "Flu")]
    rows = ref_comparisons({1: t6, 2: t9}, 3)
    assert [(r[0], r[6], r[8]) for r in rows] == [("partition changing", ["(48, M)"], ["Cancer"])]
    _load_anatomy(con, {1: t6, 2: t9})
    assert sorted(con.execute("SELECT * FROM sqlanon_comparison_attacks('a', 3)").fetchall(), key=repr) == rows

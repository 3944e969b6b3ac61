"""m-invariance: where a re-inserted person's ghost goes (sql/m_invariance/06_constrained.sql.j2,
block ghosts; docs/threat_model.md, "What is left"). A re-inserted person not placed in a
group of its anchor signature gets a ghost there; it takes a counterfeit slot of a carried
group of that signature before a new group is opened for it. Checked from the membership
and the published tables only, with the reference adversary."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import sqlanon
from reference_adversary import attack
from sqlanon import Publisher

VALUES = ["a", "b", "c", "d", "e", "f", "g"]


def drive(con, rnd, releases, m):
    """A random stream with many returns (half of them with another value) and
    few new persons, so that carried groups hold counterfeit slots when persons
    come back; returns the sources ({id: ((age, zip), value)} per release)."""
    con.execute("CREATE OR REPLACE TABLE src (id BIGINT, age INTEGER, zip VARCHAR, disease VARCHAR)")
    state = {i: (rnd.randint(20, 70), rnd.choice("xyz"), rnd.choice(VALUES)) for i in range(60)}
    gone, next_id, sources, pub = {}, 60, [], None
    for r in range(1, releases + 1):
        if r > 1:
            for pid in rnd.sample(sorted(state), k=rnd.randint(3, 8)):
                gone[pid] = state.pop(pid)
            for pid in rnd.sample(sorted(gone), k=min(len(gone), rnd.randint(2, 6))):
                age, z, v = gone.pop(pid)
                state[pid] = (age, z, rnd.choice(VALUES) if rnd.random() < 0.5 else v)
            if rnd.random() < 0.3:
                state[next_id] = (rnd.randint(20, 70), rnd.choice("xyz"), rnd.choice(VALUES))
                next_id += 1
        con.execute("DELETE FROM src")
        con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", [(k, *v) for k, v in sorted(state.items())])
        if pub is None:
            pub = Publisher(con, "p", source="src", id="id", qi=["age", "zip"], sa="disease", m=m, seed=r + m)
        res = pub.release()
        assert res.exposed == 0
        sources.append({k: ((a, z), v) for k, (a, z, v) in state.items()})
    return sources


def check(seed, m):
    """The properties on one stream; returns the ghosts placed in carried groups."""
    con = sqlanon.connect()
    try:
        sources = drive(con, random.Random(seed), 7, m)
        assert attack(con, "p", sources, qi=["age", "zip"], sa="disease", m=m) == []
        sig, mem = {}, {}
        for r in range(1, len(sources) + 1):
            for g, v, _ in con.execute("FROM sqlanon_published_st('p', ?)", [r]).fetchall():
                sig.setdefault((r, g), set()).add(v)
            mem[r] = con.execute("FROM sqlanon_membership('p', ?)", [r]).fetchall()
        anchor = {}  # id -> signature of its first real row
        for r in sorted(mem):
            for pid, g, fake, _ in mem[r]:
                if not fake and pid not in anchor:
                    anchor[pid] = frozenset(sig[(r, g)])
        in_carried = 0
        for r in range(2, len(sources) + 1):
            back = {p for p in sources[r - 1] if p not in sources[r - 2] and p in anchor}  # returning persons
            carried = {g for (q, g) in sig if q == r - 1}
            free = {frozenset(sig[(r, g)]) for pid, g, fake, _ in mem[r]
                    if fake and pid is None and g in carried}  # anchors with a counterfeit slot left
            for pid, g, fake, _ in mem[r]:
                if fake and pid in back:
                    # a returning person's ghost sits in a group of its anchor signature ...
                    assert frozenset(sig[(r, g)]) == anchor[pid], (r, pid)
                    if g in carried:
                        in_carried += 1
                    else:
                        # ... and a new group of it only when no carried one had a slot left
                        assert anchor[pid] not in free, (r, pid)
        return in_carried
    finally:
        con.close()


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(2, 4))
def test_returning_persons_ghost_takes_a_carried_slot_first(seed, m):
    check(seed, m)


def test_some_ghosts_go_to_carried_groups():
    """The streams above do exercise the carried slots."""
    assert sum(check(seed, 3) for seed in range(3)) > 0

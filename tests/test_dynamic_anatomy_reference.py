"""Seed 004 §4.1 worked example and sanity properties of the pure-Python
dynamic-Anatomy reference (tests/daa_reference.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from daa_reference import (
    definition6_violations,
    exhaustive_daa,
    penalty_dl,
    set_partitions,
)

# Table 1 (ids = row numbers) and its Table 5 partitioning (l = 3)
T1 = {1: "Flu", 2: "Fever", 3: "Cancer", 4: "Cancer", 5: "Cancer", 6: "HIV", 7: "Fever",
      8: "Cancer", 9: "HIV", 10: "HIV", 11: "Fever", 12: "Cancer"}
T5 = {**{i: 1 for i in (1, 2, 3, 4)}, **{i: 2 for i in (5, 6, 7)}, **{i: 3 for i in range(8, 13)}}
# Table 11: 6, 7 deleted; 12 updated Cancer -> Cervical cancer; 13-15 inserted
T11 = {i: v for i, v in T1.items() if i not in (6, 7)}
T11[12] = "Cervical cancer"
T11.update({13: "Cancer", 14: "HIV", 15: "Flu"})
# Table 12: 5 (48, Female, 60632) suppressed; 12 held with its old value
T12 = {**{i: 1 for i in (1, 2, 3, 4)}, **{i: 2 for i in (8, 9, 10, 11, 12)}, **{i: 3 for i in (13, 14, 15)}}
T12_SA = {i: (T1[12] if i == 12 else T11[i]) for i in T12}


def test_table12_satisfies_definition6_and_dl_89():
    assert definition6_violations(T5, T1, T12, T12_SA, 3) == []
    sizes = [sum(1 for g in T12.values() if g == p) for p in (1, 2, 3)]
    assert penalty_dl(sizes, len(T11), held=1, suppressed=2) == 89


def test_publishing_the_updated_version_is_an_svm_violation():
    sa = dict(T12_SA)
    sa[12] = "Cervical cancer"
    v = definition6_violations(T5, T1, T12, sa, 3)
    assert ("new-minus-old", 2, 3, ["Cervical cancer"]) in v
    assert ("old-minus-new", 2, 3, ["Cancer"]) in v


def test_unsuppressed_48_female_is_a_partition_changing_violation():
    assign = {**T12, 5: 3}
    sa = {**T12_SA, 5: "Cancer"}
    v = definition6_violations(T5, T1, assign, sa, 3)
    assert any(k == "new-minus-old" and g == 3 and h == 2 for k, g, h, _ in v)


def test_table5_alone_is_3_diverse():
    assert definition6_violations({}, {}, T5, T1, 3) == []


def _bell(n):
    row = [1]
    for _ in range(n):
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    return row[0]


@given(st.integers(0, 6))
def test_set_partitions_count_and_cover(n):
    parts = list(set_partitions(range(n)))
    assert len(parts) == _bell(n)
    for p in parts:
        assert sorted(x for b in p for x in b) == list(range(n))
    assert len({tuple(sorted(tuple(sorted(b)) for b in p)) for p in parts}) == len(parts)


SA = st.sampled_from("abcd")


@settings(max_examples=40)
@given(
    st.dictionaries(st.integers(1, 8), SA, min_size=0, max_size=6),
    st.dictionaries(st.integers(1, 8), SA, min_size=1, max_size=5),
    st.integers(2, 3),
    st.randoms(use_true_random=False),
)
def test_exhaustive_daa_result_is_valid_and_minimal_among_samples(prev_sa, cur, l, rnd):
    # previous release: any l-diverse partitioning of prev_sa (or none)
    prev = exhaustive_daa({}, {}, prev_sa, l) if prev_sa else None
    prev_assign = prev.assign if prev else {}
    prev_pub = prev.sa if prev else {}
    best = exhaustive_daa(prev_assign, prev_pub, cur, l)
    assert definition6_violations(prev_assign, prev_pub, best.assign, best.sa, l) == []
    sizes = [sum(1 for g in best.assign.values() if g == p) for p in set(best.assign.values())]
    assert best.dl == penalty_dl(sizes, len(cur), len(best.held), len(best.suppressed))
    assert {i for i in best.held if i in cur} <= best.suppressed
    # a random alternative release that satisfies Definition 6 never beats it
    ids = sorted(cur)
    for _ in range(20):
        pub = [i for i in ids if rnd.random() < 0.8]
        k = rnd.randint(1, max(1, len(pub)))
        assign = {i: rnd.randint(1, k) for i in pub}
        sa = {i: cur[i] for i in pub}
        if not definition6_violations(prev_assign, prev_pub, assign, sa, l):
            sizes = [list(assign.values()).count(g) for g in set(assign.values())]
            assert best.dl <= penalty_dl(sizes, len(cur), 0, len(ids) - len(pub))

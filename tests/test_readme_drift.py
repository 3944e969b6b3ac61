"""README numbers stay true: the demo block of README.md is what `sqlanon
demo` prints (the run is seeded), release times aside. The `# -> ...` outputs
of the README's python blocks are checked where they run
(tests/test_readme.py). To refresh the block: python -m sqlanon.demo --readme."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from sqlanon import demo

README = Path(__file__).resolve().parents[1] / "README.md"


def _normal(lines):
    return [demo.TIMING.sub("… s", x.rstrip()) for x in lines]


def test_readme_block_is_found_and_rewritten(tmp_path, monkeypatch):
    text = README.read_text()
    start, end = demo.readme_block(text)
    assert text[start:end].startswith("sqlanon demo: ")
    copy = tmp_path / "README.md"
    copy.write_text(text.replace(text[start:end], "old\n"))
    monkeypatch.setattr(demo, "output", lambda **_: ["new 1", "new 2"])
    assert demo.update_readme(copy) and "```\nnew 1\nnew 2\n```" in copy.read_text()
    assert not demo.update_readme(copy)
    assert copy.read_text().replace("new 1\nnew 2\n", text[start:end]) == text


def test_timings_are_normalised():
    assert _normal(["NCP 29.2% | 1.17 s | audit: safe"]) == ["NCP 29.2% | … s | audit: safe"]


@pytest.mark.slow
def test_demo_block_is_what_the_demo_prints():
    text = README.read_text()
    start, end = demo.readme_block(text)
    shown = _normal(text[start:end].splitlines())
    printed = _normal(demo.output())
    diff = "\n".join(difflib.unified_diff(shown, printed, "README.md demo block", "sqlanon demo", lineterm=""))
    assert shown == printed, ("README.md's demo block drifted from what `sqlanon demo` prints; refresh it with "
                              "`python -m sqlanon.demo --readme` (and the prose around it if the story changed):\n"
                              + diff)

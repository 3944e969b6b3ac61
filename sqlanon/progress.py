"""Progress bars for multi-release runs and long audits (tqdm).

A bar is drawn on stderr only when stderr is a terminal (tqdm's
``disable=None``): scripts, pipes, CI logs and notebook kernels (whose stderr
is not a terminal) get no bar and no control characters. ``enabled=True``
forces a bar, ``False`` turns it off. tqdm rather than rich: it is one small
pure-Python package without dependencies of its own, and it turns itself off
off a terminal, which is the behaviour wanted here.
"""

from __future__ import annotations

import sys


def bar(iterable, *, total: int | None = None, desc: str | None = None, enabled: bool | None = None):
    """``iterable``, with a progress bar on stderr when ``enabled`` (default: when stderr is a terminal)."""
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, disable=None if enabled is None else not enabled,
                leave=False, file=sys.stderr, unit="release")

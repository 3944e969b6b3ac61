"""Progress bars for multi-release runs and long audits (tqdm).

Where the bar goes:

* on a terminal (stderr is a tty): tqdm's text bar on stderr;
* in a Jupyter kernel (a notebook, JupyterLab, VS Code): tqdm's notebook
  widget (``tqdm.notebook``) when ipywidgets is installed (``pip install
  'sqlanon[notebook]'``), else tqdm's text bar, which the notebook shows as one
  line updated in place;
* anywhere else (scripts, pipes, CI logs): no bar and no control characters.

``enabled=True`` forces a bar, ``False`` turns it off. A finished bar is
removed (``leave=False``): the cell keeps its result, not a full bar.

tqdm rather than rich: it is one small pure-Python package without
dependencies of its own, it turns itself off away from a terminal, and the
same call draws a text bar or a notebook widget.
"""

from __future__ import annotations

import sys


def in_notebook() -> bool:
    """Whether this Python is a Jupyter kernel (IPython with a kernel attached)."""
    ipython = sys.modules.get("IPython")  # never imported here: a kernel has imported it already
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _widgets() -> bool:
    """Whether ipywidgets (which tqdm's notebook bar draws with) can be imported."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def bar(iterable, *, total: int | None = None, desc: str | None = None, enabled: bool | None = None):
    """``iterable``, with a progress bar when ``enabled`` (default: on a terminal
    or in a notebook, see the module's docstring)."""
    kw = dict(total=total, desc=desc, leave=False, unit="release")
    notebook = in_notebook()
    if enabled is None:
        enabled = notebook or sys.stderr.isatty()
    if enabled and notebook and _widgets():
        from tqdm.notebook import tqdm as notebook_tqdm

        return notebook_tqdm(iterable, **kw)
    from tqdm import tqdm

    return tqdm(iterable, disable=not enabled, file=sys.stderr, **kw)

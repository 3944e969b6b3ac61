"""The ``sqlanon`` command: a thin click layer over the library."""

from __future__ import annotations

import click

from . import __version__
from .install import bundle


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sqlanon")
def main() -> None:
    """Privacy-preserving continuous data publishing on DuckDB."""


@main.command("macros")
def macros_cmd() -> None:
    """Print every sqlanon macro as one SQL script (for `.read` in the DuckDB shell)."""
    click.echo(bundle())


if __name__ == "__main__":  # pragma: no cover
    main()

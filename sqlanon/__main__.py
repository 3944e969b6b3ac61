"""``python -m sqlanon``: the ``sqlanon`` command."""

from .cli import main

main()

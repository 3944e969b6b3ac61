"""The one exception type users catch."""


class SqlanonError(ValueError):
    """Bad input or a failed release: the message names the table, column or
    value at fault and how to fix it. Nothing has been written when it is raised."""

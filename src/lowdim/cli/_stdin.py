"""A table piped in: ``cat data.csv | lowdim embed - -m umap -o -``.

The readers read files by name (the format by the extension, a file's line count, a
second pass for pyarrow's parser), so the text on standard input is first copied to a
temporary file, read as any CSV file is (``--delimiter`` for another separator), and
removed when the command ends. Messages name it ``<stdin>``.
"""

import contextlib
import os
import shutil
import sys
import tempfile

from ._common import UsageError

SHOWN = "<stdin>"


@contextlib.contextmanager
def piped_input(args):
    """While the command runs, a data command's input '-' is the table on standard
    input, copied to a temporary CSV file that ``args.input`` then names; yields that
    path (None when the input is not '-').

    Examples
    --------
    >>> import argparse
    >>> with piped_input(argparse.Namespace(input="data.csv", dataset=None)) as path:
    ...     path is None
    True
    """
    if getattr(args, "input", None) != "-" or not hasattr(args, "dataset"):
        yield None
        return
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(
            "input - reads a table from standard input, but nothing is piped in; name a file, or pipe one "
            "(cat data.csv | lowdim ...)."
        )
    folder = tempfile.mkdtemp(prefix="lowdim-stdin-")
    try:
        path = os.path.join(folder, "stdin.csv")
        with open(path, "wb") as fh:
            shutil.copyfileobj(sys.stdin.buffer, fh)
        args.input = path
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shown(text, path):
    """``text`` with the temporary file's ``path`` named as ``<stdin>``."""
    return text if path is None else text.replace(path, SHOWN)

"""Pieces of the messages that errors, warnings and notes share."""


def listed(names, most=10):
    """Names for a message: the first ``most``, then ', ...' ('none' for none); a line
    break inside a name (a category written over two lines) shown as ``\\n``, so that
    the message stays one line.

    Examples
    --------
    >>> listed(["a", "b"]), listed([]), listed("abc", most=2), listed(["two\\nlines"])
    ('a, b', 'none', 'a, b, ...', 'two\\\\nlines')
    """
    names = [str(n).replace("\r", "\\r").replace("\n", "\\n") for n in names]
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "") if names else "none"


def shown(value):
    """A value as a message quotes it: numpy's scalars as the Python values they hold
    (numpy 2 writes ``np.float64(-0.13)`` and ``np.str_('a')`` for them).

    Examples
    --------
    >>> import numpy as np
    >>> shown(np.float64(-0.5)), shown(np.str_("a")), shown("b")
    ('-0.5', "'a'", "'b'")
    """
    return repr(value.item() if hasattr(value, "item") and getattr(value, "ndim", None) == 0 else value)

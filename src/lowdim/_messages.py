"""Pieces of the messages that errors, warnings and notes share."""


def listed(names, most=10):
    """Names for a message: the first ``most``, then ', ...' ('none' for none).

    Examples
    --------
    >>> listed(["a", "b"]), listed([]), listed("abc", most=2)
    ('a, b', 'none', 'a, b, ...')
    """
    names = [str(n) for n in names]
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "") if names else "none"

"""Refusing work whose memory estimate exceeds what the machine has available."""

import os

from .exceptions import MemoryBudgetError


def available_bytes():
    """Memory available for new allocations (Linux MemAvailable; else physical memory).

    Examples
    --------
    >>> available_bytes() > 0
    True
    """
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def require_memory(nbytes, what, alternatives, fraction=0.8):
    """Raise ``MemoryBudgetError`` naming the size when ``nbytes`` exceeds ``fraction``
    of the available memory.

    Examples
    --------
    >>> require_memory(1024, "a small matrix", "nothing")
    """
    limit = fraction * available_bytes()
    if nbytes > limit:
        raise MemoryBudgetError(
            f"{what} needs {nbytes / 2**30:.1f} GiB but only {limit / 2**30:.1f} GiB is available; {alternatives}."
        )

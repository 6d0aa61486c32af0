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
    found = _proc_bytes("/proc/meminfo", "MemAvailable:")
    return found if found is not None else os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _proc_bytes(path, field):
    """A ``field: N kB`` line of a /proc file in bytes, or None (not Linux, no such line)."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


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
            f"{what} needs about {nbytes / 2**30:.1f} GiB of working memory beyond the data, but "
            f"{limit / 2**30:.1f} GiB is available; {alternatives}."
        )


def resident_bytes():
    """Resident memory of this process now (Linux ``/proc/self/statm``; 0 elsewhere).

    Examples
    --------
    >>> resident_bytes() >= 0
    True
    """
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _reset_peak():
    """Reset the kernel's resident high-water mark of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_resident():
    """The resident high-water mark (VmHWM) since the last reset, or None."""
    return _proc_bytes("/proc/self/status", "VmHWM:")


def peak_during(work, interval=0.005):
    """Run ``work()`` and return ``(result, peak working bytes)``: the highest resident
    memory during the call minus the resident memory before it (what the memory models
    in ``lowdim._memory_models`` predict). On Linux the kernel's high-water mark is reset
    before the call and read after it, so no short peak is missed; elsewhere resident
    memory is sampled every ``interval`` seconds.

    Examples
    --------
    >>> import numpy as np
    >>> _, peak = peak_during(lambda: np.ones(10_000_000).sum())
    >>> peak > 40_000_000
    True
    """
    import threading
    import time

    base = resident_bytes()
    exact = _reset_peak() and _peak_resident() is not None
    peak, done = [base], threading.Event()

    def poll():
        while not done.is_set():
            peak[0] = max(peak[0], resident_bytes())
            time.sleep(interval)

    thread = None if exact else threading.Thread(target=poll, daemon=True)
    if thread is not None:
        thread.start()
    try:
        result = work()
    finally:
        done.set()
        if thread is not None:
            thread.join()
    high = _peak_resident() if exact else max(peak[0], resident_bytes())
    return result, high - base

"""Progress bars: tqdm's on a terminal or in a notebook, clean lines elsewhere.

Every bar of lowdim comes from ``progress_bar``. On a terminal (or in Jupyter) it is a
tqdm bar redrawn in place. When standard error is a file or a pipe (a batch job's log,
CI), redrawing in place leaves fragments such as ``9380232.59row/s`` glued together by
carriage returns; there the bar writes whole lines instead: one when its stage ends,
and one every ``LINE_EVERY`` seconds of a long stage.
"""

import sys
import time

LINE_EVERY = 30.0  # seconds between lines of a long stage in a log


def _interactive():
    stream = sys.stderr
    return "ipykernel" in sys.modules or bool(getattr(stream, "isatty", lambda: False)())


def progress_bar(iterable=None, **options):
    """A progress bar with tqdm's interface (``update``, ``set_postfix_str``, ``n``,
    ``total``, iteration, ``with``).

    Parameters
    ----------
    iterable : iterable, optional
    **options
        tqdm's options (``total``, ``desc``, ``unit``, ``disable``, ...).

    Examples
    --------
    >>> with progress_bar(total=3, desc="demo") as bar:  # in a log: "demo: done 3/3 it in 0.0 s"
    ...     bar.update(3)
    >>> bar.n
    3
    """
    if options.get("disable") or _interactive():
        from tqdm.auto import tqdm

        return tqdm(iterable, **options)
    return LineBar(iterable, **options)


class LineBar:
    """A bar that writes whole lines to standard error: at the end of its stage and
    every ``LINE_EVERY`` seconds (done, total, rate, elapsed time)."""

    def __init__(self, iterable=None, total=None, desc="", unit="it", disable=False, **_ignored):
        if total is None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.iterable, self.total, self.desc, self.unit, self.disable = iterable, total, desc, unit, disable
        self.n, self.postfix = 0, ""
        self.start = self.last = time.monotonic()
        self.closed = False

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.update()
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.close()
        else:
            self.abandon()
        return False

    def update(self, n=1):
        self.n += n
        self.refresh()

    def set_postfix_str(self, text="", refresh=True):
        self.postfix = str(text)

    def refresh(self):
        if time.monotonic() - self.last >= LINE_EVERY:
            self._line("")

    def close(self):
        if not self.closed:
            self.closed = True
            self._line(" done")

    def abandon(self):
        """Close without the closing line: the work stopped on an error, which says so."""
        self.closed = True

    def _line(self, state):
        self.last = time.monotonic()
        if self.disable:
            return
        elapsed = self.last - self.start
        done = f"{self.n:,}" + (f"/{self.total:,}" if self.total else "") + f" {self.unit}"
        done = done if self.n or self.total else ""  # a timer, not a count: no "0 it"
        rate = f", {self.n / elapsed:,.1f} {self.unit}/s" if elapsed >= 1 and self.n else ""
        extra = f" ({self.postfix})" if self.postfix else ""
        count = f"{done} " if done else ""
        print(f"{self.desc}:{state} {count}in {elapsed:.1f} s{rate}{extra}", file=sys.stderr, flush=True)

"""A minimal progress display on standard error for the steps that can take a while."""

from __future__ import annotations

import sys
import time

import numpy as np

__all__ = ["Progress"]


class Progress:
    """Step messages on standard error, shown once the task has run for ``delay`` seconds.

    Short runs print nothing; long ones print each step as it starts (with the elapsed time)
    and a closing line. A running count (:meth:`update`) rewrites one line in place instead.
    ``enabled=False`` silences it.

    Parameters
    ----------
    label : str
        What is running (prefix of every line).
    enabled : bool, default True
    delay : float, default 1.0
        Seconds before anything is shown.
    stream : file-like, optional
        Defaults to ``sys.stderr``.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> bar = Progress("pairs", delay=0.0, stream=out)
    >>> bar.step("fit")
    >>> bar.close()
    >>> out.getvalue().splitlines()[0].startswith("pairs: fit")
    True
    """

    def __init__(self, label: str, *, enabled: bool = True, delay: float = 1.0, stream=None):
        self.label, self.enabled, self.delay = label, bool(enabled), float(delay)
        self.stream = stream
        self.start = time.perf_counter()
        self.last = -np.inf
        self.shown = self.inline = False

    def _write(self, text: str) -> None:
        stream = sys.stderr if self.stream is None else self.stream
        stream.write(text)
        stream.flush()

    def update(self, text: str, every: float = 0.5) -> None:
        """Rewrite the status line in place with ``text`` (at most once per ``every`` s)."""
        elapsed = time.perf_counter() - self.start
        if not self.enabled or elapsed < self.delay or elapsed - self.last < every:
            return
        self.last = elapsed
        self._write(f"\r{self.label}: {text}   ")
        self.shown = self.inline = True

    def step(self, what: str, done: int | None = None, total: int | None = None) -> None:
        """Report that ``what`` starts (optionally ``done`` of ``total`` blocks)."""
        elapsed = time.perf_counter() - self.start
        if not self.enabled or elapsed < self.delay:
            return
        if total is not None and elapsed - self.last < 2.0:  # blocks: one line per 2 s
            return
        self.last = elapsed
        count = "" if total is None else f" {done}/{total}"
        self._write(f"{self.label}: {what}{count} ({elapsed:.1f} s)\n")
        self.shown = True

    def close(self, summary: str | None = None) -> None:
        """Closing line with ``summary`` and the total time (only if something was shown)."""
        if self.enabled and self.shown:
            what = "done" if summary is None else f"{summary}, done"
            start = "\r" if self.inline else ""
            self._write(f"{start}{self.label}: {what} ({time.perf_counter() - self.start:.1f} s)\n")

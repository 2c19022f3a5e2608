"""Where chunks of a simulation run: in this process, on a pool of local processes, or on a Dask
cluster; the same chunk function whoever calls it.

A simulation is a stream of tasks, each a tuple of arguments for one top-level (picklable)
chunk function. :func:`run_chunks` hands them out a few ahead of the results and gives every
result to ``take`` *in task order*, so that sums (floating ones included) and any stopping rule
see the same sequence wherever the chunks ran: the figures for a seed are those of a run in one
process, to the last bit.

Ctrl-C (counted by :class:`Interrupts`): the first stops handing out chunks, the chunks under way
finish and count; a second stops waiting for them.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from slotforge.maths.cluster import Cluster

AHEAD = 2  # chunks in flight per worker: enough to keep it busy, few enough to stop quickly
POLL = 0.05  # seconds between looks at the oldest chunk (and at Ctrl-C)


class Interrupts:
    """Counts Ctrl-C (SIGINT) instead of raising, while installed, so that a simulation can
    stop between chunks however many times the signal arrives.

    The previous handler is restored on exit. Outside the main thread (where Python cannot
    install handlers) it counts nothing.
    """

    def __init__(self) -> None:
        self.count = 0
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def run_chunks(
    work: Callable[..., Any],
    tasks: Iterator[tuple],
    take: Callable[[Any], bool | None],
    interrupts: Interrupts | None = None,
    workers: int = 1,
    cluster: Cluster | None = None,
) -> None:
    """Run ``work(*task)`` for each task and pass each result to ``take`` in task order; stop
    when ``take`` returns True, when the tasks run out, or on Ctrl-C.

    ``cluster`` (an open :class:`~slotforge.maths.cluster.Cluster`) runs the chunks there;
    otherwise ``workers`` local processes do (1: this process).
    """
    interrupts = interrupts or Interrupts()
    try:
        if cluster is not None:
            _run_ordered(
                lambda task: cluster.submit(work, task), cluster.slots, tasks, take, interrupts, cluster.cancel
            )
        elif workers > 1:
            _run_in_pool(work, tasks, take, interrupts, workers)
        else:
            _run_here(work, tasks, take, interrupts)
    except KeyboardInterrupt:  # raised by ``take`` (a progress callback), or before a handler was in place
        return


def _run_here(
    work: Callable[..., Any], tasks: Iterator[tuple], take: Callable[[Any], bool | None], interrupts: Interrupts
) -> None:
    """Play the chunks in this process, checking for Ctrl-C between them."""
    for task in tasks:
        if interrupts.count or take(work(*task)):
            return


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _call(work: Callable[..., Any], task: tuple) -> Any:
    return work(*task)


def _run_in_pool(
    work: Callable[..., Any],
    tasks: Iterator[tuple],
    take: Callable[[Any], bool | None],
    interrupts: Interrupts,
    workers: int,
) -> None:
    """Play the chunks on ``workers`` forked processes (they ignore Ctrl-C: this one counts it)."""
    context = mp.get_context("fork" if os.name == "posix" else "spawn")
    pool = context.Pool(workers, initializer=_ignore_sigint)
    try:
        _run_ordered(lambda task: pool.apply_async(_call, (work, task)), workers, tasks, take, interrupts)
    finally:
        pool.terminate()
        pool.join()


def _run_ordered(
    submit: Callable[[tuple], Any],
    slots: int,
    tasks: Iterator[tuple],
    take: Callable[[Any], bool | None],
    interrupts: Interrupts,
    cancel: Callable[[list], None] = lambda pending: None,
) -> None:
    """Keep ``AHEAD * slots`` chunks in flight, take their results in task order.

    ``submit(task)`` returns a handle with ``ready()``/``get()`` (multiprocessing) or
    ``done()``/``result()`` (Dask). Bounding what is in flight bounds memory whatever the
    number of rounds, and lets a first Ctrl-C stop quickly.
    """
    pending: deque = deque()
    try:
        while interrupts.count < 2:
            while not interrupts.count and len(pending) < AHEAD * slots:
                task = next(tasks, None)
                if task is None:
                    break
                pending.append(submit(task))
            if not pending:
                return
            if not _ready(pending[0]):
                time.sleep(POLL)
                continue
            while pending and _ready(pending[0]):
                if take(_result(pending.popleft())):
                    return
    finally:
        if pending:
            cancel(list(pending))


def _ready(handle: Any) -> bool:
    return handle.ready() if hasattr(handle, "ready") else handle.done()


def _result(handle: Any) -> Any:
    return handle.get() if hasattr(handle, "get") else handle.result()

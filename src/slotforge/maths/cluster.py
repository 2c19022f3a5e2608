"""A Dask cluster for the simulator: a running scheduler (``--cluster tcp://HOST:8786``) or one
started on this machine for the run (``--cluster local:N``, N worker processes).

Every worker runs the same chunk functions as a local process, imported from its own installed
slotforge (the same version on every machine: a worker's compiled round function is that of its
own source). See docs/cluster.md.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

ADDRESS_HELP = "expected a Dask scheduler's address (tcp://HOST:8786) or local:N (N worker processes here)"
CONNECT_SECONDS = 10


class Cluster:
    """An open connection to a Dask cluster, as the chunk runner uses it."""

    def __init__(self, client: Any, address: str) -> None:
        self.client = client
        self.address = address
        self.slots = max(1, sum(client.nthreads().values()))

    def submit(self, work: Callable[..., Any], task: tuple) -> Any:
        """Run ``work(*task)`` on some worker; a future of its result."""
        return self.client.submit(work, *task, pure=False)

    def cancel(self, futures: list) -> None:
        """Give up chunks still queued or running (a second Ctrl-C)."""
        self.client.cancel(futures)

    def on_every_worker(self, work: Callable[..., Any], *args: Any) -> None:
        """Run ``work(*args)`` once on each worker, in its task threads (to load or compile a round
        function before the clock starts), and wait for all of them."""
        workers = list(self.client.nthreads())
        futures = [self.client.submit(work, *args, workers=[w], allow_other_workers=False, pure=False) for w in workers]
        self.client.gather(futures)


def parse_address(text: str) -> tuple[str, int | str]:
    """``("local", N)`` for ``local:N``, else ``("scheduler", address)``; a ValueError naming
    ``--cluster`` for anything else."""
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster: {ADDRESS_HELP}; got {text!r}")
        return "local", int(count)
    if not text or any(c.isspace() for c in text) or ":" not in text:
        raise ValueError(f"--cluster: {ADDRESS_HELP}; got {text!r}")
    return "scheduler", text


@contextmanager
def open_cluster(address: str | None) -> Iterator[Cluster | None]:
    """The cluster at ``address`` (None: no cluster), closed (or stopped, for ``local:N``) on exit."""
    if address is None:
        yield None
        return
    kind, where = parse_address(address)
    from distributed import Client, LocalCluster

    local = None
    try:
        if kind == "local":
            with sigint_ignored():  # the worker processes inherit it: Ctrl-C is this process's to count
                local = LocalCluster(
                    n_workers=int(where),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            client = Client(local)
        else:
            client = Client(str(where), timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError) as error:
        raise ValueError(f"--cluster: no Dask scheduler answers at {address} ({error})") from error
    try:
        yield Cluster(client, address)
    finally:
        client.close()
        if local is not None:
            local.close()


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignore Ctrl-C while processes are started: an ignored signal stays ignored in a child,
    where Python then installs no KeyboardInterrupt handler of its own."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)

"""Compiling the games once, in parallel, and a server that answers while they compile: the
compile lock, the worker processes, and what a request meets while a game is not ready yet
(``tests/web/test_warmup.py`` starts a really cold server and plays through the browser)."""

from __future__ import annotations

import logging
import re
import threading
import time

import pytest

from slotforge.games import REGISTRY, warmup
from slotforge.games.warmup import (
    COMPILING,
    FAILED,
    READY,
    Warmup,
    compile_games,
    compile_lock,
    compile_order,
)


def test_the_compile_lock_lets_one_holder_at_a_time():
    order: list[str] = []
    holding = threading.Event()

    def first() -> None:
        with compile_lock("dynasty"):
            holding.set()
            order.append("first in")
            time.sleep(0.3)
            order.append("first out")

    def second() -> None:
        holding.wait()
        with compile_lock("dynasty"):
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert order == ["first in", "first out", "second in"]


def test_another_games_lock_does_not_wait():
    with compile_lock("dynasty"):
        got = threading.Event()
        thread = threading.Thread(target=lambda: (compile_lock("golden-grimoire").__enter__(), got.set()))
        thread.start()
        assert got.wait(5)


def test_the_longest_compile_starts_first_and_a_game_not_measured_last(monkeypatch):
    monkeypatch.setattr(warmup, "measured_compile_s", lambda code: None)  # a machine that never compiled
    lobby_order = list(REGISTRY)
    order = compile_order([*lobby_order, "a-new-game"])
    assert order[0] == "wish-upon-a-jackpot" and order[-1] == "a-new-game"
    assert sorted(order) == sorted([*lobby_order, "a-new-game"])  # every game, once


def test_this_machines_measured_compiles_order_the_next_warm_up(monkeypatch, tmp_path):
    monkeypatch.setattr(warmup, "timing_path", lambda code: tmp_path / f"{code}.seconds")
    seconds = {"dynasty": 80.0, "divine-fortune": 30.0, "moon-of-fortune": 55.5}
    for code, measured in seconds.items():
        (tmp_path / f"{code}.seconds").write_text(str(measured))
    assert compile_order(["divine-fortune", "moon-of-fortune", "dynasty"]) == [
        "dynasty", "moon-of-fortune", "divine-fortune"]
    # One game never measured here: the shipped order, not a guess mixing the two.
    assert compile_order(["divine-fortune", "golden-grimoire", "moon-of-fortune"]) == [
        "golden-grimoire", "moon-of-fortune", "divine-fortune"]


def test_a_warmup_says_what_its_worker_did_not_only_how_it_loaded(caplog):
    """Every game is in the session's cache: the worker loaded it, and the log says so (a
    game compiled by its worker says "compiled in a worker", as the cold server's test sees)."""
    warmup_ = Warmup(["dynasty"], workers=1)
    with caplog.at_level(logging.INFO, logger="slotforge.games"):
        warmup_.start()
        assert warmup_.wait(600)
    ready = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("game dynasty ready"))
    assert re.search(r"loaded from the cache in a worker in \d+ s, loaded in [\d.]+ s", ready), ready


def test_compiling_reports_each_game_and_a_failure_is_a_failure_not_a_hang():
    heard: list[tuple[str, str]] = []
    states = compile_games(["dynasty", "no-such-game"], workers=2, on_change=lambda c, s: heard.append((c, s)))
    assert states == {"dynasty": READY, "no-such-game": FAILED}  # dynasty: from the session's warm cache
    assert sorted(heard) == sorted([("dynasty", COMPILING), ("dynasty", READY),
                                    ("no-such-game", COMPILING), ("no-such-game", FAILED)])
    for code in ("dynasty", "no-such-game"):  # each one began before it ended
        assert heard.index((code, COMPILING)) < heard.index((code, states[code]))


def test_a_warmup_loads_each_game_and_says_so():
    loaded = []
    warmup = Warmup(["dynasty", "moon-of-fortune"], on_ready=lambda game: loaded.append(game.code), workers=2)
    assert not warmup.ready("dynasty") and warmup.status()["dynasty"]["state"] == "queued"
    warmup.start()
    assert warmup.wait(600)
    assert sorted(loaded) == ["dynasty", "moon-of-fortune"]
    assert warmup.all_ready() and warmup.counts() == (2, 2)
    status = warmup.status()
    assert status["dynasty"]["ready"] is True and status["dynasty"]["seconds"] >= 0


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_round_for_a_game_still_warming_up_is_refused_at_once_and_nothing_is_taken(api):
    player = api.fun_player()
    before = player.get("/v1/session").json()["balance"]
    server = api.client.app.state.server
    server.warmup = Warmup(["dynasty"])  # not started: Dynasty stays queued
    refused = player.play("dynasty")
    assert refused.status_code == 503
    assert refused.json()["error"] == "GAME_WARMING_UP" and refused.json()["field"] == "game"
    assert refused.json()["warmup"]["state"] == "queued"
    assert int(refused.headers["Retry-After"]) > 0
    health = api.client.get("/v1/health").json()
    assert health["ready"] is False and health["games"]["dynasty"]["ready"] is False
    assert api.client.get("/v1/games/dynasty").status_code == 200  # its page can still be drawn
    assert player.get("/v1/session").json()["balance"] == before

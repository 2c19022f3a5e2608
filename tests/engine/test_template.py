"""docs/engine.md's new-game checklist, walked through by Two Doors (``toy/two_doors/``): a game
laid out as every shipped game is, registered by one entry, plays a round, simulates and reports
its RTP, and is held to its maths (its simulated rounds hold its exact RTP, for every strategy);
and a game's declared capabilities are held to what its class does."""

from __future__ import annotations

from pathlib import Path

import pytest
from toy.two_doors import TwoDoors

from slotforge import games
from slotforge.engine import round as rounds
from slotforge.engine.game import Game
from slotforge.engine.roles import Capabilities, RtpOptions
from slotforge.reports.simulate import simulate
from slotforge.rgs.jackpots.embedded import has_pool
from slotforge.rgs.rounds.service import carries_state

SHIPPED = Path(games.__file__).parent
# The simulation against the exact figure: a fixed seed (never flaky) and a stated confidence (a
# correct game's simulation lies outside its 99% interval for one seed in a hundred).
CONFIDENCE = "99%"
SEED = 20261206
ROUNDS = 1_000_000  # a 99% interval of about 0.003: a door paying one unit more moves the RTP by 0.05


@pytest.fixture
def registered(monkeypatch):
    """Two Doors added to the registry by its one entry, and nothing else."""
    monkeypatch.setitem(games.REGISTRY, "two-doors", games.Registration("toy.two_doors", "TwoDoors"))
    games._shipped.cache_clear()
    yield
    games._shipped.cache_clear()


def test_the_toy_has_the_files_of_every_shipped_game():
    toy = sorted(path.name for path in Path(TwoDoors.model_file).parent.iterdir() if path.is_file())
    for code, entry in games.REGISTRY.items():
        folder = SHIPPED / entry.package.rsplit(".", 1)[1]
        # A game's kernels may be a package split by feature (docs/engine.md) rather than one file.
        files = {f"{path.name}.py" if path.name == "kernels" else path.name for path in folder.iterdir()
                 if path.is_file() or (path / "__init__.py").is_file()}
        assert sorted(files) == toy, code


def test_one_registry_entry_makes_a_game_playable_simulated_and_reported(registered):
    game = games.load_game("two-doors")
    assert isinstance(game, TwoDoors) and "two-doors" in games.game_codes()
    record = rounds.play(game, {"level": 1}, choices=[0], source=rounds.seeded_words(3))
    assert record["game"] == "two-doors" and record["status"] == "awaiting"  # the double-or-nothing waits
    report = games.maths_of(game).rtp_report()
    assert report["method"] == "exact" and report["rtp"] == sum(report["parts"].values())
    simulated = simulate("two-doors", 20_000, seed=4)
    assert simulated["rounds"] == 20_000 and simulated["features"] == {}


@pytest.mark.parametrize("strategy", TwoDoors.strategies)
def test_the_simulated_rounds_hold_the_exact_rtp(registered, strategy):
    """The check every game passes before it ships: complete rounds through the round function
    that pays players, their RTP within the 99% interval of the exact figure."""
    exact_rtp = games.maths_of(games.load_game("two-doors")).rtp_report(RtpOptions(strategy=strategy))["rtp"]
    simulated = simulate("two-doors", ROUNDS, seed=SEED, strategy=strategy)
    assert simulated["rounds"] == ROUNDS and simulated["strategy"] == strategy
    assert simulated["ci99"] < 0.005  # tight enough to see a pay off by one unit
    assert abs(simulated["rtp"] - exact_rtp) < simulated["ci99"], CONFIDENCE


def test_an_unregistered_game_has_no_maths():
    with pytest.raises(games.UnknownGame, match="two-doors"):
        games.maths_of(TwoDoors())


def test_the_server_reads_the_declared_capabilities():
    game = TwoDoors()
    assert carries_state(game) and not has_pool(game)
    assert type(game).capabilities == Capabilities(carries_state=True, rtp_follows_strategy=True)


def test_a_capability_declared_but_not_offered_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="carries_state=True, but the class does not override state_array"):
        class Forgetful(TwoDoors):  # noqa: F841 (never made: its declaration is refused)
            capabilities = Capabilities(carries_state=True, jackpot_pool=False)
            state_array = Game.state_array

    with pytest.raises(TypeError, match="jackpot_pool=True, but the class has no pool_config"):
        class Poolless(TwoDoors):  # noqa: F841
            capabilities = Capabilities(carries_state=True, jackpot_pool=True)


def test_a_capability_offered_but_not_declared_is_refused_too():
    with pytest.raises(TypeError, match="carries_state=False, but the class overrides state_array"):
        class Undeclared(TwoDoors):  # noqa: F841
            capabilities = Capabilities()

    with pytest.raises(TypeError, match="jackpot_pool=False, but the class has a pool_config"):
        class Secretive(TwoDoors):  # noqa: F841
            capabilities = Capabilities(carries_state=True)

            def pool_config(self) -> None:
                return None


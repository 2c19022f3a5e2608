"""The interface every game offers to the round runner, the simulator and the maths.

A :class:`Game` is the static part (OpenSpiel's "game"): the validated model, its compiled
arrays and the compiled round function. A round's state lives only inside one call of that
function; what a player carries between rounds is passed in and out explicitly: as JSON in the
round record, as an int64 array (:meth:`Game.state_array`) in the compiled round.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import slotforge
from slotforge.engine import events, loop
from slotforge.engine.bet import Bet, format_money
from slotforge.engine.model import LineGameSpec, ModelError, fingerprint, load_json, validate
from slotforge.engine.outcomes import Outcomes, make_outcomes, option_table
from slotforge.engine.roles import Capabilities

ENGINE = Path(__file__).parent


def version_of(model_id: str | None) -> str | None:
    """The version part of a model id ``game/version:fingerprint`` (as :attr:`Game.model_id`
    makes it and round records carry it); None for none."""
    if not model_id or "/" not in model_id:
        return None
    return model_id.split("/", 1)[1].split(":", 1)[0]


class ScriptError(ValueError):
    """A script or choice the game cannot use, naming the field and what was expected."""


def as_percent(fraction: Decimal) -> str:
    """A published RTP fraction as the rules print it: 0.9526 -> "95.26%"."""
    return f"{fraction * 100:.2f}%"


class GambleCapError(ValueError):
    """A gamble cap the rules set in one currency that the operator's rates cannot convert into
    the player's: the gamble cannot start (the message names the field and the missing rate)."""


@dataclass(frozen=True)
class Operator:
    """Settings the operator chooses, not the player: limits that change how a round may go."""

    gamble_limit: Decimal | None = None  # the most a gamble may win; None: the game's own default
    fun_play: bool = False


@dataclass(frozen=True)
class Decision:
    """A decision kind: its name and its own options. The round function offers and takes
    options by their index in ``options``."""

    name: str
    options: tuple[str, ...]


@dataclass
class RunResult:
    """What one call of a compiled round returned."""

    status: int
    win_units: int
    state: dict[str, Any] = field(default_factory=dict)


class Presentation:
    """How a game's rounds read in the record (its draws, feature events and game-specific wins)
    and how its strategies are named to a person: the presentation role, apart from the rules.
    A game's rules name theirs in ``presentation_class``; each game holds one
    (:attr:`Game.presentation`), which the record builder and the published RTP read."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def describe_strategy(self, name: str) -> str:
        """One line on what a strategy does (for ``--help`` and reports)."""
        return name

    def describe_draw(self, name: int, value: int) -> Any:
        """A draw value as the record shows it."""
        return value

    def describe_feature(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        """A game-specific FEATURE event row as a record event."""
        return {"type": "feature", "fields": [int(x) for x in row[1:6]]}

    def describe_win(self, row: np.ndarray, bet: Bet) -> dict[str, Any]:
        """A game-specific WIN event row as a record win (bonus coins, a fixed jackpot)."""
        f = events.fields(row)
        return {"kind": "feature", "symbol": "", "count": f["count"], "amount": format_money(bet.amount(f["units"]))}


class Game(ABC):
    """A game: model data, compiled tables and the round function.

    A subclass names its model file, its scripted draws, its decisions and the strategies that
    answer them in the simulator, and the counters its round function tallies; it compiles the
    model into ``tables`` and supplies ``simulate_rounds(tables, bet, state, outcomes, log,
    scratch, rounds, tally, totals)``: ``engine.loop.run_rounds`` compiled with ``jit.loop``
    around the game's round function ``play_round(tables, bet, state, outcomes, log, scratch,
    tally) -> (status, win units)`` (``bet`` is the int64 array of :meth:`bet_arguments`,
    ``state`` the carried state of :meth:`state_array`). Live play runs it for one round.
    """

    code: ClassVar[str]
    model_file: ClassVar[Path]
    draw_names: ClassVar[tuple[str, ...]] = ()
    capabilities: ClassVar[Capabilities] = Capabilities()
    presentation_class: ClassVar[type[Presentation]] = Presentation
    decisions: ClassVar[tuple[Decision, ...]] = ()
    strategies: ClassVar[tuple[str, ...]] = ()  # the simulator's answers to decisions; the first is the default
    tally_names: ClassVar[tuple[str, ...]] = ()
    simulate_rounds: ClassVar[Any]
    tables: Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Hold a game's declared capabilities to what its class does, when the class is made:
        the server trusts the declaration, so a wrong one must not load."""
        super().__init_subclass__(**kwargs)
        declared = cls.capabilities
        if declared.carries_state != (cls.state_array is not Game.state_array):
            raise TypeError(f"{cls.__name__}: capabilities.carries_state={declared.carries_state}, but the class "
                            f"{'does not override' if declared.carries_state else 'overrides'} state_array")
        if declared.jackpot_pool != callable(getattr(cls, "pool_config", None)):
            raise TypeError(f"{cls.__name__}: capabilities.jackpot_pool={declared.jackpot_pool}, but the class "
                            f"{'has no' if declared.jackpot_pool else 'has a'} pool_config")

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path or self.model_file)
        raw = load_json(self.path)
        self.spec: LineGameSpec = validate(LineGameSpec, raw, str(self.path))
        self.model_id = f"{self.spec.game}/{self.spec.version}:{fingerprint(raw)}"
        self.code_id = code_fingerprint(Path(self.model_file).parent)
        if self.spec.game != self.code:
            raise ModelError(f"{self.path}: game: expected {self.code!r}, got {self.spec.game!r}")
        self.choice_names: tuple[str, ...] = tuple(dict.fromkeys(o for d in self.decisions for o in d.options))
        self.option_table = option_table([d.options for d in self.decisions], self.choice_names)
        self.compile()
        self.presentation = self.presentation_class(self)

    # -- model ------------------------------------------------------------------------------
    def section(self, schema: type, name: str) -> Any:
        """Validate a game-specific section (``bet`` or ``features``) of the model file."""
        return validate(schema, getattr(self.spec, name), str(self.path), prefix=name)

    @abstractmethod
    def compile(self) -> None:
        """Build the arrays the compiled round function reads."""

    @property
    def grid(self) -> tuple[int, int]:
        """(rows, reels)."""
        return self.spec.grid.rows, self.spec.grid.reels

    @cached_property
    def codes(self) -> tuple[str, ...]:
        """The symbol codes by id (read for every cell of every screen a record shows)."""
        return tuple(self.spec.codes)

    # -- rounds -----------------------------------------------------------------------------
    @abstractmethod
    def parse_bet(self, raw: dict[str, Any] | None) -> Bet:
        """Validate the player's bet fields (defaults fill what is missing)."""

    def run(self, bet: Bet, outcomes: Outcomes, log: np.ndarray, operator: Operator, state: dict) -> RunResult:
        """Play one round with the compiled round function, carrying the player's ``state``."""
        self.check_script(outcomes)
        carried = self.state_array(state, bet)
        scratch = self.scratch()
        tally = np.zeros(max(1, len(self.tally_names)), dtype=np.int64)
        status, win = self.play_once(self.bet_arguments(bet, operator), carried, outcomes, log, scratch, tally)
        if status == events.REJECTED:
            reason = self.refusal(scratch)
            if reason:
                raise ScriptError(reason)
        return RunResult(status, win, self.updated_state(state, bet, carried))

    def play_once(self, bet_args: np.ndarray, state: np.ndarray, outcomes: Outcomes, log: np.ndarray,
                  scratch: Any, tally: np.ndarray) -> tuple[int, int]:
        """One round through the game's compiled loop: (status, win units)."""
        totals = np.zeros(loop.TOTALS, dtype=np.int64)
        self.simulate_rounds(self.tables, bet_args, state, outcomes, log, scratch, 1, tally, totals)
        return int(totals[loop.LAST_STATUS]), int(totals[loop.WIN_UNITS])

    def check_script(self, outcomes: Outcomes) -> None:  # noqa: B027 (most games need no more checks)
        """Refuse forced outcomes this game cannot show (beyond what the script parser checks)."""

    def refusal(self, scratch: Any) -> str | None:
        """Why the round function refused a scripted round, naming the script field (or None)."""
        return None

    # -- carried state ----------------------------------------------------------------------
    def state_array(self, state: dict[str, Any], bet: Bet) -> np.ndarray:
        """The part of the player's carried state (JSON) that a round at ``bet`` reads and updates,
        as the round function's int64 array. A game that carries state overrides this and
        :meth:`updated_state`; this default is the one place that says a game carries nothing."""
        if state:
            raise ScriptError(f"state: {self.code} carries no state between rounds; expected {{}}, got {state!r}")
        return np.zeros(0, dtype=np.int64)

    def updated_state(self, state: dict[str, Any], bet: Bet, array: np.ndarray) -> dict[str, Any]:
        """The player's carried state after a round at ``bet`` left ``array``."""
        return {}

    # -- decisions ----------------------------------------------------------------------------
    def outcomes(self, stream: np.ndarray, script: Any = None, choices: list[int] | None = None,
                 strategy: int = -1) -> Outcomes:
        """The outcomes of a round of this game: ``script`` (an ``engine.round.Script``) first, then
        ``stream``; decisions the choices leave open go to ``strategy`` (an index into
        :attr:`strategies`; -1 waits for the player)."""
        return make_outcomes(
            stream, self.grid,
            script.screens if script else None, script.draws if script else None, choices,
            draw_names=max(1, len(self.draw_names)), options=self.option_table, strategy=strategy,
        )

    def strategy_index(self, name: str | None) -> int:
        """The index of a named strategy (None: the default one)."""
        if name is None:
            return 0
        if name not in self.strategies:
            offered = list(self.strategies) or "none: it has no decisions"
            raise ScriptError(f"strategy: {self.code} has no strategy {name!r}; expected one of {offered}")
        return self.strategies.index(name)

    @abstractmethod
    def bet_arguments(self, bet: Bet, operator: Operator) -> np.ndarray:
        """The round function's int64 bet array, under the operator's settings."""

    def published_rtp(self) -> dict[str, Any]:
        """The published RTP as the lobby, the games API and the command line show it: ``rtp``
        (a decimal string), ``rtp_range`` (its ends and the strategy giving each, or None) and
        ``rtp_text`` ("96.59%", or "92.46% to 95.26%")."""
        spread = self.spec.rtp_range
        if spread is None:
            return {"rtp": str(self.spec.rtp), "rtp_range": None, "rtp_text": as_percent(self.spec.rtp)}
        return {
            "rtp": str(self.spec.rtp),
            "rtp_range": {
                "min": str(spread.min), "max": str(spread.max),
                "min_strategy": spread.min_strategy, "max_strategy": spread.max_strategy,
                "min_strategy_text": self.presentation.describe_strategy(spread.min_strategy),
                "max_strategy_text": self.presentation.describe_strategy(spread.max_strategy),
            },
            "rtp_text": f"{as_percent(spread.min)} to {as_percent(spread.max)}",
        }

    def gamble_cap(self, currency: str, rate_of: Callable[[str], Decimal | None]) -> Decimal | None:
        """A cap on a gamble's win that the game's rules set in a currency of their own, in
        ``currency`` at the operator's rates (``rate_of``: EUR per unit); None when the rules set
        none. Raises :class:`GambleCapError` when it cannot be converted."""
        return None

    def simulation_bet(self) -> Bet:
        """The bet the simulator plays (RTP is the same at every bet)."""
        return self.parse_bet({})

    @abstractmethod
    def scratch(self) -> Any:
        """Fresh work arrays for the round function."""

    def parse_draw(self, name: str, raw: Any) -> int:
        """A scripted draw value as the integer the round function uses."""
        raise ScriptError(f"draws.{name}: not a draw of {self.code}; expected one of {list(self.draw_names)}")

    def strip_symbols(self, reel: int) -> set[str]:
        """Symbols a reel can carry in any mode (a forced screen may only show these): its
        strips' symbols, and on an independent-reel grid those of every cell in its column."""
        carried = {code for strips in self.spec.reels.values() for code in strips[reel]}
        rows, reels = self.grid
        for tables in self.spec.cell_weights.values():
            for row in range(rows):
                carried |= set(tables[0 if len(tables) == 1 else row * reels + reel])
        return carried

    def extra_screen_symbols(self) -> set[str]:
        """Symbols a forced screen may show beyond the strips (e.g. held or transformed ones)."""
        return set()


def code_fingerprint(game_package: Path) -> str:
    """Which code plays a game's rounds: the package version and a hash of the engine's and the
    game's own source. A record made by other code is refused by replay and resume."""
    digest = hashlib.sha256()
    # Every source of the game's package, a kernels package's modules included, by its path there.
    for path in sorted([*ENGINE.glob("*.py"), *ENGINE.glob("data/*.json"), *game_package.rglob("*.py")]):
        name = path.relative_to(game_package) if path.is_relative_to(game_package) else Path(path.name)
        digest.update(name.as_posix().encode())
        digest.update(path.read_bytes())
    return f"slotforge {slotforge.__version__}:{digest.hexdigest()[:12]}"

"""Dynasty's maths: the RTP by combinatorics (the base game) and closed form (retriggering free
spins), and the simulator's feature figures."""

from __future__ import annotations

from typing import Any

from slotforge.engine.bet import Bet
from slotforge.engine.roles import RtpOptions
from slotforge.games.dynasty.rules import Dynasty
from slotforge.maths import exact
from slotforge.maths.game_maths import GameMaths


class Maths(GameMaths):
    """Dynasty's reports."""

    game: Dynasty

    def feature_report(self, tally: dict[str, int], rounds: int, bet: Bet) -> dict[str, Any]:
        stake = rounds * bet.total_units
        triggered = tally["free_spins_triggered"]
        return {
            "base_game": {"rtp": tally["base_win"] / stake},
            "free_spins": {
                "rtp": tally["free_win"] / stake,
                "frequency": triggered / rounds,
                "one_in": rounds / triggered if triggered else None,
                "triggered": triggered,
                "spins_played": tally["free_spins_played"],
                "spins_per_trigger": tally["free_spins_played"] / triggered if triggered else None,
                "retriggers": tally["retriggers"],
            },
        }

    def rtp_report(self, options: RtpOptions = RtpOptions()) -> dict[str, Any]:
        """The RTP by combinatorics (base game) and closed form (retriggering free spins).

        It is the same at every bet: reels are independent with uniform stops, so every payline
        has the same expected win, and scatters pay on the total bet. ``options.bet`` is checked
        and named in the report; nothing is simulated. Every gamble strategy has this RTP: the
        card gamble pays exactly what it stakes on average.
        """
        game = self.game
        bet = game.parse_bet(options.bet)
        strategy = game.strategies[game.strategy_index(options.strategy)]
        symbols = len(game.spec.symbols)
        fs = game.features.free_spins
        base = exact.screen_maths(game.tables.pay, game.tables.base, symbols)
        free = exact.screen_maths(game.tables.pay, game.tables.free, symbols)
        trigger = base.at_least(fs.trigger)
        retrigger = free.at_least(fs.trigger)
        spins = exact.retrigger_spins(fs.award, retrigger, fs.retrigger)
        free_spin_rtp = fs.multiplier * (free.line_rtp + free.scatter_rtp)
        parts = {
            "base_lines": base.line_rtp,
            "base_scatter": base.scatter_rtp,
            "free_spins": trigger * spins * free_spin_rtp,
        }
        return {
            "game": game.code,
            "model": game.model_id,
            "method": "exact",
            "bet": bet.as_json(),
            "strategy": strategy,
            "rtp": sum(parts.values()),
            "parts": parts,
            "published_rtp": float(game.spec.rtp),
            "gamble": "a fair gamble: every strategy returns what it stakes, so the RTP is the same for all",
            "free_spins_frequency": trigger,
            "free_spins_per_trigger": spins,
            "retrigger_chance_per_free_spin": retrigger,
            "free_spin_rtp_per_spin": free_spin_rtp,
        }

"""Free rounds: an operator's campaigns, their grants to players, and what a free round does to
the books. Every rule of free rounds is written here once; the operator's and the player's routes
(:mod:`slotforge.rgs.api.free_rounds`) and the round service call it.

- **A campaign** names games, a bet per currency (the game's bet fields, valid for each of its
  games), rounds per player, a time window (from inclusive, until exclusive), an optional cap on
  players, and whether the gamble and the progressive jackpot are open to its rounds (both off
  unless turned on). The operator's ``reference`` is unique per operator: creating it again
  with the same body answers the campaign, with another body 422 ``IDEMPOTENCY_KEY_REUSED``.
- **A grant** gives one player the campaign's rounds (one grant per player and campaign:
  granting again answers the grant as it stands, so a grant call is idempotent by itself).
- **A free round** is played on the general path, in one transaction with its grant's count:
  :func:`take_round` is one conditional update (``rounds_played < rounds_granted``, the grant
  not declined or lapsed, the campaign neither cancelled nor out of its window), so a grant
  of N rounds plays N, whatever races it. Its stake is the operator's promotional money: the
  ledger books it as a ``promo`` credit and the round's ``stake`` debit, so the player's balance
  does not move and the books still balance; the win is paid as any round's.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from sqlalchemy import Connection, Select, bindparam, exists, func, insert, select, update

from slotforge.engine.bet import Bet, BetError
from slotforge.engine.game import Game
from slotforge.rgs.errors import DomainError, KeyReused, NotFound, invalid
from slotforge.rgs.money import to_minor, to_text
from slotforge.rgs.rounds.views import iso
from slotforge.rgs.schema import free_campaigns, free_grants, ledger, players, rounds

CENT = Decimal("0.01")
# A grant's states as stored; ``finished`` (every round played) and ``lapsed`` (the campaign
# over with rounds left) are also what :func:`grant_state` reads off a grant.
PLAYABLE = ("offered", "accepted")
PROMO, PROMO_BACK = "promo", "promo_back"  # the ledger's kinds of the operator's promotional money


class FreeRoundsUnavailable(DomainError):
    """A free round asked of a grant that has none left to play: all played, declined, lapsed,
    the campaign cancelled or outside its window."""


# -- campaigns ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Campaign:
    """A campaign as stored, its JSON fields read."""

    id: int
    operator_id: int
    reference: str
    name: str
    games: list[str]
    bets: dict[str, dict[str, Any]]
    rounds: int
    valid_from: int
    valid_until: int
    player_cap: int | None
    allow_gamble: bool
    jackpot_eligible: bool
    request_hash: str
    created_at: int
    cancelled_at: int | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Campaign:
        return cls(**{**dict(row), "games": json.loads(row["games"]), "bets": json.loads(row["bets"]),
                      "allow_gamble": bool(row["allow_gamble"]), "jackpot_eligible": bool(row["jackpot_eligible"])})

    def state(self, now: int) -> str:
        if self.cancelled_at is not None:
            return "cancelled"
        return "scheduled" if now < self.valid_from else "active" if now < self.valid_until else "ended"


def check_bets(games: list[Game], bets: Mapping[str, Mapping[str, Any]], currencies: list[str]) -> dict[str, dict]:
    """Each currency's bet, checked: a currency the server takes, and the bet one of every game's
    bet options (422 naming ``bets.CUR.FIELD`` and the allowed values); the bets as each game
    normalises them."""
    checked = {}
    for currency, fields in bets.items():
        if currency not in currencies:
            raise invalid(f"bets.{currency}", f"bets.{currency}: expected one of the currencies {currencies}")
        for game in games:
            bet = parse_free_bet(game, currency, fields)
            checked[currency] = bet.as_json()
    return checked


def parse_free_bet(game: Game, currency: str, fields: Mapping[str, Any]) -> Bet:
    """A campaign's bet in ``currency`` as ``game`` takes it (422 naming ``bets.CUR.FIELD``)."""
    try:
        bet = game.parse_bet(dict(fields))
        to_minor(bet.total_bet, "bet")
    except (BetError, ValueError) as error:
        field, _, why = str(error).partition(": ")
        where = f"bets.{currency}.{field.removeprefix('bet.')}" if why else f"bets.{currency}"
        raise invalid(where, f"{where} ({game.code}): {why or error}") from error
    return bet


def check_window(valid_from: int, valid_until: int) -> None:
    """A campaign ends after it starts (422 naming ``valid_until``)."""
    if valid_until <= valid_from:
        raise invalid("valid_until", "valid_until: expected a time after valid_from")


def campaign_of(conn: Connection, operator_id: int, reference: str, lock: bool = False) -> Campaign:
    """The operator's campaign ``reference`` (404 otherwise); ``lock``: its row locked until the
    transaction ends (PostgreSQL; SQLite's write lock holds already)."""
    query = select(free_campaigns).where(free_campaigns.c.operator_id == operator_id,
                                         free_campaigns.c.reference == reference)
    row = conn.execute(query.with_for_update() if lock else query).mappings().first()
    if row is None:
        raise NotFound(f"campaign {reference} not found")
    return Campaign.of(row)


def create_campaign(conn: Connection, operator_id: int, fields: dict[str, Any], fingerprint: str,
                    now: int) -> tuple[Campaign, bool]:
    """The campaign ``fields`` describe, inserted unless its reference exists with the same
    request (``fingerprint``); (the campaign, whether it is new)."""
    existing = conn.execute(select(free_campaigns).where(
        free_campaigns.c.operator_id == operator_id,
        free_campaigns.c.reference == fields["reference"])).mappings().first()
    if existing is not None:
        if existing["request_hash"] != fingerprint:
            raise KeyReused("reference: used before for another campaign", field="reference")
        return Campaign.of(existing), False
    values = {**fields, "games": json.dumps(fields["games"]), "bets": json.dumps(fields["bets"], sort_keys=True),
              "operator_id": operator_id, "request_hash": fingerprint, "created_at": now, "cancelled_at": None}
    values["id"] = conn.execute(insert(free_campaigns).values(**values).returning(free_campaigns.c.id)).scalar_one()
    return Campaign.of(values), True


def cancel_campaign(conn: Connection, campaign: Campaign, now: int) -> Campaign:
    """Cancel a campaign (once: cancelling again changes nothing): every grant's unplayed rounds
    lapse now. A round in play (awaiting a decision) took its grant's round when it started and
    finishes as usual."""
    if campaign.cancelled_at is not None:
        return campaign
    conn.execute(update(free_campaigns).where(free_campaigns.c.id == campaign.id).values(cancelled_at=now))
    conn.execute(update(free_grants).where(free_grants.c.campaign_id == campaign.id,
                                           free_grants.c.state.in_(PLAYABLE),
                                           free_grants.c.rounds_played < free_grants.c.rounds_granted)
                 .values(state="lapsed", updated_at=now))
    return replace(campaign, cancelled_at=now)


# -- grants ---------------------------------------------------------------------------------------
def grant(conn: Connection, campaign: Campaign, player_id: int, now: int) -> tuple[dict[str, Any], bool]:
    """The player's grant of ``campaign`` (the caller holds the campaign's row locked); (the
    grant, whether it is new)."""
    row = conn.execute(select(free_grants).where(free_grants.c.campaign_id == campaign.id,
                                                 free_grants.c.player_id == player_id)).mappings().first()
    if row is not None:
        return dict(row), False
    values = dict(campaign_id=campaign.id, player_id=player_id, rounds_granted=campaign.rounds, rounds_played=0,
                  state="offered", created_at=now, updated_at=now)
    values["id"] = conn.execute(insert(free_grants).values(**values).returning(free_grants.c.id)).scalar_one()
    return values, True


def granted_players(conn: Connection, campaign_id: int) -> int:
    return conn.execute(select(func.count()).select_from(free_grants).where(
        free_grants.c.campaign_id == campaign_id)).scalar_one()


def grant_state(grant_row: Mapping[str, Any], campaign: Campaign, now: int) -> str:
    """Where a grant stands: ``offered``, ``accepted``, ``declined``, ``finished`` (every round
    played) or ``lapsed`` (the campaign cancelled or over with rounds left)."""
    if grant_row["rounds_played"] >= grant_row["rounds_granted"]:
        return "finished"
    if grant_row["state"] in PLAYABLE and (campaign.cancelled_at is not None or now >= campaign.valid_until):
        return "lapsed"
    return grant_row["state"]


def player_grant(conn: Connection, grant_id: int, player_id: int) -> tuple[dict[str, Any], Campaign]:
    """The player's grant ``grant_id`` and its campaign (404 for another player's)."""
    row = conn.execute(select(free_grants).where(free_grants.c.id == grant_id,
                                                 free_grants.c.player_id == player_id)).mappings().first()
    if row is None:
        raise NotFound(f"free rounds {grant_id} not found")
    campaign = Campaign.of(conn.execute(select(free_campaigns).where(
        free_campaigns.c.id == row["campaign_id"])).mappings().one())
    return dict(row), campaign


def player_grants(conn: Connection, player_id: int, now: int) -> list[tuple[dict[str, Any], Campaign]]:
    """The player's grants still to play or to answer: rounds left, not declined, the campaign
    not over (a campaign not yet started is listed, its rounds playable from its start)."""
    query = (select(free_grants, free_campaigns).join(free_campaigns, free_campaigns.c.id == free_grants.c.campaign_id)
             .where(free_grants.c.player_id == player_id, free_grants.c.state.in_(PLAYABLE),
                    free_grants.c.rounds_played < free_grants.c.rounds_granted,
                    free_campaigns.c.cancelled_at.is_(None), free_campaigns.c.valid_until > now)
             .order_by(free_grants.c.id))
    found = []
    for row in conn.execute(query).mappings():
        campaign = Campaign.of({name: row[free_campaigns.c[name]] for name in free_campaigns.c.keys()})
        found.append(({name: row[free_grants.c[name]] for name in free_grants.c.keys()}, campaign))
    return found


def offered(conn: Connection, player_id: int, currency: str, fun: bool, now: int) -> list[dict[str, Any]]:
    """A session's free rounds to play or to answer, as its player sees them (none in fun play)."""
    if fun:
        return []
    return [grant_view(conn, row, campaign, currency, now) for row, campaign in player_grants(conn, player_id, now)]


def answer_offer(conn: Connection, grant_row: Mapping[str, Any], campaign: Campaign, choice: str,
                 now: int) -> dict[str, Any]:
    """The player's answer to a grant: ``accept`` (play now), ``later`` (put off: it stays
    offered) or ``decline`` (its rounds are given up for good). A grant declined, lapsed or
    finished cannot change (409 ``FREE_ROUNDS_UNAVAILABLE``)."""
    state = grant_state(grant_row, campaign, now)
    if state not in PLAYABLE:
        raise FreeRoundsUnavailable(f"free rounds {grant_row['id']} are {state}", field="choice")
    new = {"accept": "accepted", "later": state, "decline": "declined"}[choice]
    if new != grant_row["state"]:
        conn.execute(update(free_grants).where(free_grants.c.id == grant_row["id"], free_grants.c.state.in_(PLAYABLE))
                     .values(state=new, updated_at=now))
    return {**grant_row, "state": new}


def grant_view(conn: Connection, row: Mapping[str, Any], campaign: Campaign, currency: str, now: int) -> dict[str, Any]:
    """A grant as its player sees it: the campaign's games and bet, rounds played and left, its
    state and what its rounds have won."""
    won = conn.execute(select(func.coalesce(func.sum(rounds.c.win), 0)).where(
        rounds.c.free_grant_id == row["id"], rounds.c.status == "complete")).scalar_one()
    return {"id": row["id"], "campaign": campaign.reference, "name": campaign.name, "games": campaign.games,
            "bet": campaign.bets.get(currency, {}), "rounds": row["rounds_granted"], "played": row["rounds_played"],
            "left": row["rounds_granted"] - row["rounds_played"], "state": grant_state(row, campaign, now),
            "won": to_text(int(won)), "valid_from": iso(campaign.valid_from), "valid_until": iso(campaign.valid_until),
            "gamble": campaign.allow_gamble, "jackpot": campaign.jackpot_eligible}


# -- a free round ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class FreeRound:
    """A round request's free-round grant and its campaign, as read before the round's
    transaction (the transaction's :func:`take_round` decides whether it may still be played)."""

    grant_id: int
    campaign: Campaign

    def gamble_allowed(self) -> bool:
        return self.campaign.allow_gamble

    def jackpot_open(self) -> bool:
        return self.campaign.jackpot_eligible


OPEN_CAMPAIGN = exists().where(free_campaigns.c.id == free_grants.c.campaign_id,
                               free_campaigns.c.cancelled_at.is_(None),
                               free_campaigns.c.valid_from <= bindparam("p_now"),
                               free_campaigns.c.valid_until > bindparam("p_now"))
# The one statement that spends a free round: it changes nothing once the grant has none left.
TAKE_ROUND = (update(free_grants)
              .where(free_grants.c.id == bindparam("p_grant"), free_grants.c.player_id == bindparam("p_player"),
                     free_grants.c.state.in_(PLAYABLE), free_grants.c.rounds_played < free_grants.c.rounds_granted,
                     OPEN_CAMPAIGN)
              .values(rounds_played=free_grants.c.rounds_played + 1, state="accepted", updated_at=bindparam("p_now"))
              .returning(free_grants.c.rounds_played))
GIVE_BACK = (update(free_grants).where(free_grants.c.id == bindparam("p_grant"), free_grants.c.rounds_played > 0)
             .values(rounds_played=free_grants.c.rounds_played - 1, updated_at=bindparam("p_now")))


def wallet_transaction() -> str:
    """The transaction id a seamless player's free round is known by at the wallet: no debit
    carries it, its win's credit is ``{id}-win``."""
    return f"free-{uuid.uuid4().hex}"


def take_round(conn: Connection, grant_id: int, player_id: int, now: int) -> int:
    """Spend one round of the grant, in the transaction that commits the round; the rounds
    played now (409 ``FREE_ROUNDS_UNAVAILABLE`` when none is left to play at ``now``)."""
    played = conn.execute(TAKE_ROUND, {"p_grant": grant_id, "p_player": player_id, "p_now": now}).scalar()
    if played is None:
        raise FreeRoundsUnavailable(f"free_round: free rounds {grant_id} have no round left to play (all played, "
                                    "declined, lapsed, or the campaign is cancelled or outside its dates)",
                                    field="free_round")
    return played


def book_stake(conn: Connection, row: Mapping[str, Any], now: int) -> None:
    """A free round's stake in the ledger: the operator's promotional money credited, then taken
    as the round's stake; the player's balance does not move."""
    for kind in (PROMO, "stake"):
        conn.execute(insert(ledger).values(player_id=row["player_id"], kind=kind, amount=row["stake"],
                                           round_id=row["id"], reference=None, created_at=now))


def book_void(conn: Connection, row: Mapping[str, Any], now: int) -> None:
    """A free round voided: its stake refunded and the promotional money returned to the
    operator (the player's balance does not move), and the round given back to the grant."""
    for kind in ("refund", PROMO_BACK):
        conn.execute(insert(ledger).values(player_id=row["player_id"], kind=kind, amount=row["stake"],
                                           round_id=row["id"], reference=None, created_at=now))
    conn.execute(GIVE_BACK, {"p_grant": row["free_grant_id"], "p_now": now})


def campaign_of_grant(conn: Connection, grant_id: int) -> Campaign:
    return Campaign.of(conn.execute(select(free_campaigns).join(
        free_grants, free_grants.c.campaign_id == free_campaigns.c.id).where(
        free_grants.c.id == grant_id)).mappings().one())


# -- progress and cost ----------------------------------------------------------------------------
def expected(rounds_count: int, stake: int, rtp: Decimal) -> Decimal:
    """What ``rounds_count`` rounds at ``stake`` (minor units) are expected to pay at ``rtp``, in
    currency (exact; shown to the cent)."""
    return rounds_count * Decimal(stake) * CENT * rtp


def progress(conn: Connection, campaign: Campaign, games: Mapping[str, Game]) -> dict[str, Any]:
    """Players granted, rounds granted and played, and per currency the wins paid (the cost so
    far) beside the expected cost: rounds x bet x the game's RTP (of the complete rounds, by the
    game that played them; of every round granted, at the campaign's costliest game)."""
    by_currency: dict[str, dict[str, Any]] = {}
    for currency, count, granted, spent in conn.execute(granted_by_currency(campaign.id)):
        costliest = max((expected(1, stake_of(games[code], campaign, currency), games[code].spec.rtp)
                         for code in campaign.games if code in games), default=Decimal(0))
        by_currency[currency] = {**no_figures(), "players": int(count), "rounds_granted": int(granted or 0),
                                 "rounds_played": int(spent or 0), "expected_cost": costliest * int(granted or 0)}
    for currency, game, count, stakes, wins in conn.execute(played_by_game(campaign.id)):
        figures = by_currency.setdefault(currency, no_figures())
        figures["rounds_complete"] += int(count)
        figures["bets"] += int(stakes)
        figures["wins_paid"] += int(wins)
        if game in games:
            figures["expected_of_played"] += int(stakes) * CENT * games[game].spec.rtp
    totals = {name: sum(f[name] for f in by_currency.values()) for name in ("players", "rounds_granted",
                                                                            "rounds_played")}
    return {**totals, "by_currency": {currency: shown(figures) for currency, figures in sorted(by_currency.items())}}


def no_figures() -> dict[str, Any]:
    """One currency's progress before any grant or round is counted."""
    return {"players": 0, "rounds_granted": 0, "rounds_played": 0, "rounds_complete": 0, "bets": 0, "wins_paid": 0,
            "expected_of_played": Decimal(0), "expected_cost": Decimal(0)}


def granted_by_currency(campaign_id: int) -> Select:
    """(currency, players, rounds granted, rounds played) of a campaign's grants."""
    return (select(players.c.currency, func.count(), func.sum(free_grants.c.rounds_granted),
                   func.sum(free_grants.c.rounds_played))
            .join(players, players.c.id == free_grants.c.player_id)
            .where(free_grants.c.campaign_id == campaign_id).group_by(players.c.currency))


def played_by_game(campaign_id: int) -> Select:
    """(currency, game, rounds, bets, wins) of a campaign's complete rounds."""
    return (select(rounds.c.currency, rounds.c.game, func.count(), func.sum(rounds.c.stake), func.sum(rounds.c.win))
            .join(free_grants, free_grants.c.id == rounds.c.free_grant_id)
            .where(free_grants.c.campaign_id == campaign_id, rounds.c.status == "complete")
            .group_by(rounds.c.currency, rounds.c.game))


def stake_of(game: Game, campaign: Campaign, currency: str) -> int:
    """A round's stake of ``game`` at the campaign's bet in ``currency``, in minor units."""
    return to_minor(parse_free_bet(game, currency, campaign.bets[currency]).total_bet, "bet")


def shown(figures: dict[str, Any]) -> dict[str, Any]:
    """One currency's progress as the answer writes it (expectations to the cent)."""
    return {"players": figures["players"], "rounds_granted": figures["rounds_granted"],
            "rounds_played": figures["rounds_played"], "rounds_complete": figures["rounds_complete"],
            "bets": to_text(figures["bets"]), "wins_paid": to_text(figures["wins_paid"]),
            "cost_so_far": to_text(figures["wins_paid"]),
            "expected_cost_of_played": str(figures["expected_of_played"].quantize(CENT, ROUND_HALF_EVEN)),
            "expected_cost": str(figures["expected_cost"].quantize(CENT, ROUND_HALF_EVEN))}


def is_free(row: Mapping[str, Any]) -> bool:
    """Whether a round is a free round."""
    return row.get("free_grant_id") is not None

"""Who a seamless player is to their operator's wallet: which wallet their operator uses, and
the external id and currency the wallet's calls name them by. Both are read once and kept (an
operator's wallet and a player's details do not change while the server runs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Connection, select

from slotforge.rgs.schema import operators, players
from slotforge.rgs.settings import Settings


@dataclass(frozen=True)
class PlayerInfo:
    external_id: str
    currency: str
    operator: str


@dataclass
class PlayerDirectory:
    """The players' details for the wallets' calls, and each operator's kind of wallet, kept once read."""

    settings: Settings
    _players: dict[int, PlayerInfo] = field(default_factory=dict)
    _names: dict[int, str] = field(default_factory=dict)

    def kind_of(self, conn: Connection, operator_id: int) -> str:
        """The wallet (internal or seamless) of a new player of this operator."""
        name = self._names.get(operator_id)
        if name is None:
            name = self._names[operator_id] = conn.execute(
                select(operators.c.name).where(operators.c.id == operator_id)).scalar_one()
        return self.settings.operator(name).wallet

    def player(self, conn: Connection, player_id: int) -> PlayerInfo:
        info = self._players.get(player_id)
        if info is None:
            row = conn.execute(select(players.c.external_id, players.c.currency, operators.c.name)
                               .join(operators, operators.c.id == players.c.operator_id)
                               .where(players.c.id == player_id)).one()
            info = self._players[player_id] = PlayerInfo(*row)
        return info

    def known(self, player_id: int) -> PlayerInfo | None:
        """The player's details if :meth:`player` has read them already (they are kept)."""
        return self._players.get(player_id)

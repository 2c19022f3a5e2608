"""The ``slotforge`` command: simulate, compute RTP, write PAR sheets, play and replay rounds, run the
game server, the jackpot service and the reference wallet.

One module per area, each adding its commands to the one :data:`app` (:mod:`.common`) as it is
imported: the top-level commands of :mod:`.compliance`, :mod:`.maths`, :mod:`.play` and :mod:`.server`
(listed in that order, the order of the imports), then the command groups, added below in the order
``slotforge --help`` lists them.
"""

from __future__ import annotations

from slotforge.cli import compliance, design, jackpot, maths, office, play, rng, server, wallet_demo  # noqa: F401  (each adds its commands)
from slotforge.cli.common import BAD_INPUT, INTERRUPTED, MAX_ROUNDS, app

app.add_typer(rng.rng_app, name="rng")
app.add_typer(server.operator_app, name="operator")
server.operator_app.add_typer(office.keys_app, name="keys")
server.operator_app.add_typer(office.users_app, name="users")
app.add_typer(compliance.audit_app, name="audit")
app.add_typer(compliance.players_app, name="players")
app.add_typer(jackpot.jackpot_app, name="jackpot")
app.add_typer(wallet_demo.wallet_demo_app, name="wallet-demo")

__all__ = ["BAD_INPUT", "INTERRUPTED", "MAX_ROUNDS", "app"]

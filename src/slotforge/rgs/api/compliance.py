"""What compliance teams and test labs ask of a live server (docs/compliance.md): exports of the
books, the change log and its chain, the integrity of what plays, dispute links to one round's
replay, and the erasure of a player's personal data. Operator API (``X-Api-Key`` or a back-office
user), but for the dispute page, which its link's signature opens."""

from __future__ import annotations

import html
import json
from datetime import timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, StreamingResponse
from pydantic import Field
from sqlalchemy import select

from slotforge.rgs.api import answers
from slotforge.rgs.api.callers import CanAdmin, CanLookUp, CanReadReports, CanSupport
from slotforge.rgs.api.models import Body, Code, Currency, Id, Moment, millis
from slotforge.rgs.compliance import changes, erasure, exports, integrity, links
from slotforge.rgs.errors import invalid, not_found
from slotforge.rgs.rounds.service import server_of
from slotforge.rgs.rounds.views import iso, round_view
from slotforge.rgs.schema import players, rounds

router = APIRouter(prefix="/v1")
pages = APIRouter()


Since = Annotated[Moment | None, Query(alias="from", description="ISO 8601 time, inclusive (UTC without a zone)")]
Until = Annotated[Moment | None, Query(alias="to", description="ISO 8601 time, exclusive (UTC without a zone)")]


@router.get("/operator/exports/{kind}", response_class=StreamingResponse, responses=answers.EXPORT_STREAM)
def export(kind: Literal["rounds", "transactions"], caller: CanLookUp, request: Request,
           since: Since = None, until: Until = None, player: Code | None = None, game: Code | None = None,
           version: Code | None = None, currency: Currency | None = None,
           format: Literal["csv", "jsonl"] = "csv") -> StreamingResponse:
    """This operator's rounds or wallet transactions (by start or booking time), streamed as CSV or
    JSON lines, oldest first."""
    operator_id = caller.operator_id
    chosen = exports.EXPORTS[kind]
    filters = exports.Filters(since=millis(since), until=millis(until), operator_id=operator_id, player=player,
                              game=game, version=version, currency=currency)
    body = exports.encode(chosen, chosen.rows(server_of(request).engine, filters), format, filters)
    name = f"{kind}.{format}"
    return StreamingResponse(body, media_type=exports.MEDIA_TYPES[format],
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get("/operator/changes", response_model=None, responses=answers.CHANGES)
def change_log(caller: CanLookUp, request: Request,
               limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """The change log, newest first: the server's own entries and this operator's changes."""
    server = server_of(request)
    actor = f"operator:{caller.operator}"
    shown = []
    for entry in changes.entries(server.engine, newest_first=True):
        if entry["actor"] in (actor, "server") or entry["actor"].startswith(actor + "/"):
            shown.append(entry_view(entry))
            if len(shown) == limit:
                break
    return {"changes": shown}


def entry_view(entry: dict[str, Any]) -> dict[str, Any]:
    return {**changes.decoded(entry), "created_at": iso(entry["created_at"])}


@router.get("/operator/changes/verify", response_model=None, responses=answers.CHAIN)
def verify_changes(caller: CanLookUp, request: Request) -> dict[str, Any]:
    """Walk the whole change log's hash chain: whether it holds, and its head."""
    verdict = changes.verify(server_of(request).engine)
    return {"intact": verdict.intact, "checked": verdict.checked, "head": verdict.head, "problem": verdict.problem}


@router.get("/integrity", response_model=None, responses=answers.INTEGRITY)
def integrity_of_games(caller: CanReadReports, request: Request,
                       seed: Annotated[str | None, Query(description="a lab's seed (at least 32 hex digits): "
                                                         "the answer adds the package's HMAC under it")] = None
                       ) -> dict[str, Any]:
    """Each game in play: its model's hash, version and code, against its certified manifest."""
    answer: dict[str, Any] = {"games": [game.as_json() for game in
                                        integrity.games_in_play(server_of(request).games.in_play())]}
    if seed is not None:
        try:
            digest, files = integrity.package_digest(integrity.parse_seed(seed))
        except ValueError as error:
            raise invalid("seed", str(error)) from error
        answer["package"] = {"seed": seed, "hmac_sha256": digest, "files": files}
    return answer


class DisputeLinkRequest(Body):
    hours: int = Field(72, ge=1, le=links.LONGEST_HOURS, description="how long the link opens the round")


@router.post("/operator/rounds/{round_id}/dispute-link", response_model=None, responses=answers.DISPUTE_LINK)
def dispute_link(round_id: Id, body: DisputeLinkRequest, caller: CanSupport, request: Request) -> dict[str, Any]:
    """A signed link to the round's replay page that opens without a login until it expires."""
    operator_id = caller.operator_id
    server = server_of(request)
    now = server.now()
    expires = now + int(timedelta(hours=body.hours) / timedelta(milliseconds=1))
    link = links.issue(server.engine, round_id, expires)  # its secret read (or made) before the transaction
    with server.transaction() as conn:
        own_round(conn, operator_id, round_id)
        changes.append(conn, changes.Change(caller.actor, "dispute_link_issued",
                                            f"round:{round_id}", after={"expires_at": iso(expires)}), now)
    return {"round": round_id, "url": str(request.base_url).rstrip("/") + link.path(), "expires_at": iso(expires)}


def own_round(conn: Any, operator_id: int, round_id: int) -> dict[str, Any]:
    """The round, if it is of one of this operator's players (404 otherwise)."""
    row = conn.execute(select(rounds).join(players, players.c.id == rounds.c.player_id).where(
        rounds.c.id == round_id, players.c.operator_id == operator_id)).mappings().first()
    if row is None:
        raise not_found(f"round {round_id}")
    return dict(row)


@router.post("/operator/players/{player_id}/erase", response_model=None, responses=answers.ERASE)
def erase_player(player_id: Code, caller: CanAdmin, request: Request) -> dict[str, Any]:
    """Replace the player's id with a pseudonym: their personal data gone, their books whole."""
    operator_id = caller.operator_id
    server = server_of(request)
    key = erasure.pseudonym_key(server.engine)
    with server.transaction() as conn:
        try:
            alias = erasure.erase(conn, key, operator_id, player_id, caller.actor,
                                  server.now())
        except erasure.NoSuchPlayer as error:
            raise not_found(str(error)) from error
    return {"player_id": alias}


@pages.get("/dispute/{round_id}", include_in_schema=False)
def dispute_page(round_id: int, request: Request, expires: int = 0, signature: str = "") -> HTMLResponse:
    """The replay of one round, opened by its dispute link; anything else is refused and shows nothing."""
    server = server_of(request)
    try:
        links.check(server.engine, round_id, expires, signature, server.now())
    except links.LinkRefused:
        return HTMLResponse(REFUSED_PAGE, status_code=403)
    with server.engine.connect() as conn:
        row = conn.execute(select(rounds).where(rounds.c.id == round_id)).mappings().first()
    if row is None:
        return HTMLResponse(REFUSED_PAGE, status_code=403)
    view = round_view(row)
    game = server.games.get(row["game"])
    return HTMLResponse(replay_page(view, game.spec.name if game else row["game"]))


REFUSED_PAGE = ("<!doctype html><html lang=en><meta charset=utf-8><title>Link not valid</title>"
                "<p>This link is not valid or has expired. Ask the casino for a new one.</p></html>")


def replay_page(view: dict[str, Any], game_name: str) -> str:
    """One round as a page: its figures and every step's screen and wins."""
    e = html.escape
    facts = [("Round", view["id"]), ("Game", game_name), ("Status", view["status"]),
             ("Started", view["started_at"]), ("Finished", view["finished_at"] or "not yet"),
             ("Stake", f"{view.get('total_bet', '')} {view['currency']}"),
             ("Win", f"{view['total_win']} {view['currency']}"),
             ("Balance before", view["balance_before"]), ("Balance after", view["balance_after"]),
             ("Model", view.get("model", "")), ("Code", view.get("code", ""))]
    if view.get("void_reason"):
        facts.append(("Void because", view["void_reason"]))
    rows = "".join(f"<tr><th>{e(str(name))}</th><td>{e(str(value))}</td></tr>" for name, value in facts)
    steps = []
    for number, step in enumerate(view.get("steps", []), 1):
        screen = "".join("<tr>" + "".join(f"<td>{e(str(cell))}</td>" for cell in line) + "</tr>"
                         for line in step.get("screen", []))
        wins = "".join(f"<li>{e(json.dumps(win, ensure_ascii=False))}</li>" for win in step.get("wins", []))
        steps.append(f"<section><h2>{number}. {e(str(step.get('kind', '')))}</h2><table class=screen>{screen}"
                     f"</table><ul>{wins or '<li>no win</li>'}</ul></section>")
    return ("<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
            f"<title>Round {e(str(view['id']))}: {e(game_name)}</title>"
            "<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:1rem auto;padding:0 1rem}"
            "th{text-align:left;padding-right:1rem}.screen td{border:1px solid #999;padding:.2rem .4rem}</style>"
            f"<h1>Round {e(str(view['id']))}: {e(game_name)}</h1><table>{rows}</table>{''.join(steps)}</html>")

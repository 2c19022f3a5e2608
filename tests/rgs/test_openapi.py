"""The OpenAPI document describes every answer, and the server's real answers conform to it.

Each answer here is validated against the model its operation declares (found by the name the
document gives it, so an operation declaring the wrong model fails too): a field renamed in a
handler or in a model, or added to one side only, fails this test."""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel

from slotforge.rgs.api import answers
from slotforge.rgs.api.answers import ErrorAnswer, Round

# The fields of a round that only some rounds have: a void round, a seamless player's round.
OCCASIONAL_ROUND_FIELDS = {"void", "void_reason", "wallet", "free_round"}


def declared(doc: dict[str, Any], method: str, path: str, status: int = 200) -> type[BaseModel]:
    """The model the OpenAPI document ``doc`` names for ``status`` of ``method path`` (failing if
    the operation declares no such answer)."""
    responses = doc["paths"][path][method.lower()]["responses"]
    assert str(status) in responses, f"{method} {path} does not declare {status}"
    reference = responses[str(status)]["content"]["application/json"]["schema"]["$ref"]
    return getattr(answers, reference.rsplit("/", 1)[1])


def conforms(doc: dict[str, Any], answer: httpx.Response, method: str, path: str, status: int = 200) -> dict[str, Any]:
    """The JSON body of ``answer``, checked against the model its operation declares for its status."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    declared(doc, method, path, status).model_validate(body)
    return body


def played_in_full(round_body: dict[str, Any]) -> None:
    """A played round shows every field of the record, not only those the model requires."""
    given = Round.model_validate(round_body).model_fields_set
    assert set(Round.model_fields) - OCCASIONAL_ROUND_FIELDS - given == set()


def schema_of(doc: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """The schema of one media type of an answer, its reference to a component resolved."""
    schema = content.get("schema", {})
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_every_operation_declares_its_answer_and_its_errors(api):
    doc = api.client.get("/openapi.json").json()
    operations = [(method, path, operation) for path, item in doc["paths"].items()
                  for method, operation in item.items()]
    assert len(operations) >= 20
    error_form = {"$ref": "#/components/schemas/ErrorAnswer"}
    for method, path, operation in operations:
        success = operation["responses"].get("200")
        assert success and success.get("description"), f"{method} {path}: no success answer"
        schemas = [schema_of(doc, content) for content in success.get("content", {}).values()]
        assert schemas and all(schema.get("type") for schema in schemas), f"{method} {path}: {success}"
        for schema in schemas:
            if schema["type"] == "object":  # a body names its fields, each described
                fields = schema.get("properties")
                assert fields and all(field.get("description") for field in fields.values()), f"{method} {path}"
        for status, answer in operation["responses"].items():
            if status.startswith(("4", "5")):
                assert answer["content"]["application/json"]["schema"] == error_form, f"{method} {path} {status}"
    assert "HTTPValidationError" not in doc["components"]["schemas"]  # FastAPI's form, never answered here


def test_real_answers_conform_to_their_declared_models(api):
    doc = api.client.get("/openapi.json").json()
    conforms(doc, api.client.get("/v1/health"), "GET", "/v1/health")
    conforms(doc, api.client.get("/v1/games"), "GET", "/v1/games")
    conforms(doc, api.client.get("/v1/games/dynasty"), "GET", "/v1/games/{code}")
    conforms(doc, api.client.get("/v1/games/divine-fortune"), "GET", "/v1/games/{code}")
    conforms(doc, api.client.post("/v1/fun-sessions", json={"currency": "EUR"}), "POST", "/v1/fun-sessions")

    # The operator opens a session and pays money in.
    opened = api.operator("POST", "/v1/operator/sessions", json={"player_id": "ada", "currency": "EUR"})
    conforms(doc, opened, "POST", "/v1/operator/sessions")
    paid = api.operator("POST", "/v1/operator/players/ada/transactions",
                        json={"kind": "deposit", "amount": "50.00", "reference": "in-1"})
    conforms(doc, paid, "POST", "/v1/operator/players/{player_id}/transactions")
    player = api.player("0.00", player_id="ada")
    conforms(doc, player.get("/v1/session"), "GET", "/v1/session")

    # Rounds until one waits at the gamble; a new round is refused meanwhile; then it is decided.
    for _ in range(500):
        played = conforms(doc, player.play(), "POST", "/v1/rounds")
        played_in_full(played["round"])
        if played["round"]["status"] == "awaiting":
            break
    waiting = played["round"]
    assert waiting["awaiting"]["options"]
    conforms(doc, player.get("/v1/session"), "GET", "/v1/session")
    blocked = conforms(doc, player.play(), "POST", "/v1/rounds", 409)
    assert blocked["error"] == "ROUND_IN_PROGRESS" and blocked["round"] == waiting["id"]
    decided = conforms(doc, player.post(f"/v1/rounds/{waiting['id']}/decisions", {"choice": "collect"}),
                       "POST", "/v1/rounds/{round_id}/decisions")
    played_in_full(decided["round"])
    again = conforms(doc, player.post(f"/v1/rounds/{waiting['id']}/decisions", {"choice": "collect"}),
                     "POST", "/v1/rounds/{round_id}/decisions", 422)
    assert again["error"] == "INVALID_CHOICE"

    # History, one round, the autoplay plan, the pools.
    page = conforms(doc, player.get("/v1/rounds", params={"limit": 5}), "GET", "/v1/rounds")
    for recalled in page["rounds"]:
        played_in_full(recalled)
    one = conforms(doc, player.get(f"/v1/rounds/{waiting['id']}"), "GET", "/v1/rounds/{round_id}")
    assert one["verified"] is True
    plan = conforms(doc, player.post("/v1/autoplay", {"game": "dynasty", "rounds": 10, "cash_decrease": "5.00"}),
                    "POST", "/v1/autoplay")
    conforms(doc, player.get(f"/v1/autoplay/{plan['id']}"), "GET", "/v1/autoplay/{plan_id}")
    stopped = conforms(doc, player.client.delete(f"/v1/autoplay/{plan['id']}", headers=player.headers),
                       "DELETE", "/v1/autoplay/{plan_id}")
    assert stopped["stopped"] == "player"
    conforms(doc, player.get("/v1/jackpots"), "GET", "/v1/jackpots")

    # The operator's side: the player, the rounds, a void after completion, the report.
    conforms(doc, api.operator("GET", "/v1/operator/players/ada"), "GET", "/v1/operator/players/{player_id}")
    listed = conforms(doc, api.operator("GET", "/v1/operator/rounds", params={"player": "ada"}),
                      "GET", "/v1/operator/rounds")
    assert listed["rounds"]
    conforms(doc, api.operator("GET", "/v1/operator/reports/games"), "GET", "/v1/operator/reports/games")
    voided = conforms(doc, api.operator("POST", f"/v1/operator/rounds/{waiting['id']}/void",
                                        json={"reason": "reel display fault"}),
                      "POST", "/v1/operator/rounds/{round_id}/void")
    assert voided["round"]["void"]["after_completion"] is True and voided["win_reversed"] is not None
    conforms(doc, player.get(f"/v1/rounds/{waiting['id']}"), "GET", "/v1/rounds/{round_id}")


def test_error_answers_conform_to_their_declared_model(api):
    doc = api.client.get("/openapi.json").json()
    poor = api.player("0.10")
    refused = conforms(doc, poor.play(), "POST", "/v1/rounds", 402)  # Dynasty's default bet is 0.20
    assert refused["error"] == "INSUFFICIENT_FUNDS" and refused["balance"] == "0.10"
    assert ErrorAnswer.model_validate(refused).balance == "0.10"
    reused = poor.post("/v1/rounds", {"game": "dynasty", "bet": {"lines": 1}}, key="twice")
    conforms(doc, reused, "POST", "/v1/rounds")
    conforms(doc, poor.post("/v1/rounds", {"game": "dynasty", "bet": {"lines": 2}}, key="twice"),
             "POST", "/v1/rounds", 422)
    unknown = conforms(doc, poor.play("no-such-game"), "POST", "/v1/rounds", 403)
    assert unknown["error"] == "GAME_NOT_ALLOWED" and unknown["field"] == "game"
    bad_bet = conforms(doc, poor.play(bet={"lines": 99}), "POST", "/v1/rounds", 422)
    assert bad_bet["error"] == "INVALID_BET"
    keyless = conforms(doc, poor.client.post("/v1/rounds", json={"game": "dynasty"}, headers=poor.headers),
                       "POST", "/v1/rounds", 400)
    assert keyless["field"] == "Idempotency-Key"
    conforms(doc, api.client.get("/v1/session", headers={"Authorization": "Bearer forged"}), "GET", "/v1/session", 401)
    conforms(doc, poor.get("/v1/rounds/999999"), "GET", "/v1/rounds/{round_id}", 404)
    amount = conforms(doc, api.operator("POST", f"/v1/operator/players/{poor.player_id}/transactions",
                                        json={"kind": "withdrawal", "amount": "1e3", "reference": "out-1"}),
                      "POST", "/v1/operator/players/{player_id}/transactions", 422)
    assert amount["error"] == "VALIDATION" and amount["field"] == "amount"
    conforms(doc, api.operator("POST", f"/v1/operator/players/{poor.player_id}/transactions",
                               json={"kind": "withdrawal", "amount": "5.00", "reference": "out-2"}),
             "POST", "/v1/operator/players/{player_id}/transactions", 402)
    fun = api.fun_player()
    conforms(doc, fun.get("/v1/rounds"), "GET", "/v1/rounds", 403)


# The answers' amounts of money, by the names they go by (a jackpot claim's `amount`, kept to
# fractions of a cent in the pool's EUR, and the request-side rules are not answers' money).
MONEY_NAMES = {"balance", "balance_before", "balance_after", "stake", "stakes", "win", "wins", "ggr", "net",
               "net_position", "jackpot_win", "jackpot_payouts", "refunded", "win_reversed", "win_not_reversed",
               "total_win", "total_bet", "current"}
MONEY_PATTERNS = {r"^[0-9]+\.[0-9]{2}$", r"^-?[0-9]+\.[0-9]{2}$", r"^[0-9]+\.[0-9]{2,}$"}


def test_every_amount_of_money_in_every_answer_is_one_money_type_with_its_pattern(api):
    from slotforge.rgs.api import backoffice

    assert backoffice.Money is answers.Money and backoffice.SignedMoney is answers.SignedMoney
    doc = api.client.get("/openapi.json").json()
    unpatterned = []
    for name, schema in doc["components"]["schemas"].items():
        for field, prop in (schema.get("properties") or {}).items():
            texts = [v for v in prop.get("anyOf", [prop]) if v.get("type") == "string"]
            if field in MONEY_NAMES and texts and any(v.get("pattern") not in MONEY_PATTERNS for v in texts):
                unpatterned.append(f"{name}.{field}")
    assert unpatterned == []

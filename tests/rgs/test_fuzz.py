"""Schemathesis against the server's own OpenAPI: every operation, thousands of generated
requests carrying a real session token, operator key and idempotency key. No answer is a 5xx,
every error has the contract's shape, every answer's status is one its operation declares and
its body conforms to the declared schema, and the books balance afterwards. The live jackpot
stream is left out: its answer never ends (it has its own tests in test_jackpot_service.py)."""

from __future__ import annotations

import secrets

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import content_type_conformance, response_schema_conformance, status_code_conformance

from slotforge.rgs.audit import audit

EXAMPLES_PER_OPERATION = 50
# What each answer is checked against, beside the contract's error shape: the OpenAPI document.
CONFORMANCE = [status_code_conformance, content_type_conformance, response_schema_conformance]


def test_generated_requests_never_get_a_server_error_and_the_books_balance(api):
    app = api.client.app
    player = api.player("1000.00")
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    operations = [operation for operation in operations if not operation.path.endswith("/stream")]
    assert len(operations) >= 15  # every other operation of both APIs
    sent = 0
    for operation in operations:

        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def no_server_error(case):
            nonlocal sent
            case.headers = {**(case.headers or {}), **player.headers, "X-Api-Key": api.operator_key,
                            "Idempotency-Key": secrets.token_hex(8)}
            response = case.call()
            sent += 1
            assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
            if response.status_code >= 400:
                body = response.json()
                assert set(body) >= {"error", "message"}, body
                assert "Traceback" not in response.text
            case.validate_response(response, checks=CONFORMANCE)

        no_server_error()
    assert sent >= 15 * 50  # hypothesis stops early on operations with few distinct inputs
    with app.state.server.engine.connect() as conn:
        assert audit(conn) == []

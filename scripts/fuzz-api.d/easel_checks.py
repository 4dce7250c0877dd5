"""Schemathesis checks of Easel's own contract (loaded by scripts/fuzz-api
through SCHEMATHESIS_HOOKS).

`envelope`: every answer is the JSON envelope {"status": {"code", "msg",
"key"}, "data"} (DESIGN.md Contracts), except the success of a call whose
description says it answers something else (a file, an event stream, a
redirect, the description itself). A failure of such a call is still the
envelope.
"""
import json

import schemathesis


def _envelope_call(case):
    """True when the description's success answer is the envelope."""
    try:
        content = case.operation.definition.raw["responses"]["200"]["content"]
    except (AttributeError, KeyError, TypeError):
        return True
    schema = content.get("application/json", {}).get("schema", {})
    return "status" in schema.get("properties", {})


@schemathesis.check
def envelope(ctx, response, case):
    status = response.status_code
    if status < 400 and not _envelope_call(case):
        return None
    content_type = ",".join(response.headers.get("content-type", []))
    if not content_type.startswith("application/json"):
        raise AssertionError(f"{status} answered {content_type or 'no content type'}, not the JSON envelope")
    try:
        body = json.loads(response.content)
    except ValueError as e:
        raise AssertionError(f"{status} answered JSON that does not parse: {e}") from None
    if not isinstance(body, dict) or "data" not in body or not isinstance(body.get("status"), dict):
        raise AssertionError(f"{status} answered {str(body)[:200]}, not {{status, data}}")
    s = body["status"]
    if not isinstance(s.get("code"), int) or not isinstance(s.get("msg"), str) or "key" not in s:
        raise AssertionError(f"{status}: status {s} lacks code, msg or key")
    if (s["code"] == 10000) != (status < 400):
        raise AssertionError(f"HTTP {status} with code {s['code']}")
    return None

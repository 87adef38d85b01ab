"""The harness's model client: an OpenAI-compatible endpoint with retries, one deadline and a body cap.

`EndpointModel` posts through `trackerkit.simulate.endpoint.post` (one deadline from connecting to
the last byte, a capped body, same-origin redirects only) and reads the answer strictly
(`read_completion`). On HTTP 429 and 5xx it waits and tries again: `Retry-After` when the server
sends it (seconds or an HTTP date), else an exponential backoff; the whole call, waits included,
stays within `timeout`. The API key is read from the environment variable named by `api_key_env`
at each call and goes only into the `Authorization` header: never into a result, a log line, a
trace event or an error message.

Each request carries `X-Trackerkit-Eval: scenario=<id>; step=<n>; run=<k>` while the harness has
tagged the model (servers ignore headers they do not know; the harness's noisy test server seeds its
choices from it).
"""

from __future__ import annotations

import email.utils
import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime

import httpx

from trackerkit.errors import ModelError, ToolsRefusedError
from trackerkit.simulate.completion import ModelReply, ModelRequest, read_completion
from trackerkit.simulate.endpoint import MAX_BODY, post

# The OpenAI client's own reading of an error body and of a refusal of tools, so both clients
# word a failing server alike.
from trackerkit.simulate.model import REFUSAL_HINTS, OpenAIModel, error_detail

__all__ = ["RETRY_STATUSES", "TAG_HEADER", "EndpointModel", "retry_after"]

#: The header naming the scenario, step and run a request belongs to.
TAG_HEADER = "X-Trackerkit-Eval"
#: Statuses worth another try: too many requests, and the server's own failures.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a `Retry-After` header asks to wait (a number of seconds or an HTTP date), or None."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            moment = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = (moment - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(seconds, 0.0)


class EndpointModel(OpenAIModel):
    """An OpenAI-compatible chat-completions endpoint (`OpenAIModel`), with retries on 429 and 5xx.

    Args:
        base_url: the API root, such as `http://127.0.0.1:11434/v1`.
        model: the model name the server knows.
        api_key_env: the environment variable holding the API key (none sent when unset).
        timeout: seconds for the whole call, retries and their waits included.
        max_body: the most bytes of one answer read.
        max_retries: tries after the first, on 429 and 5xx.
        backoff: the first wait in seconds when the server names none; it doubles each try.
        sleep: how to wait (tests pass a fake).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_body: int = MAX_BODY,
        max_retries: int = 4,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(base_url, model, api_key_env, timeout, max_body)
        self.max_retries = max_retries
        self.backoff = backoff
        self.sleep = sleep
        #: How many tries after a 429 or 5xx this model has made so far.
        self.retries = 0
        #: (scenario id, step index, run) of the step being played, sent in TAG_HEADER.
        self.tag: tuple[str, int, int] | None = None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "").strip()
        if key:
            if not all("!" <= c <= "~" for c in key):
                raise ModelError(
                    f"the API key in {self.api_key_env} has a character that cannot go in an HTTP "
                    "header (keys are printable ASCII); check the variable"
                )
            headers["Authorization"] = f"Bearer {key}"
        if self.tag is not None:
            scenario, step, run = self.tag
            headers[TAG_HEADER] = f"scenario={scenario}; step={step}; run={run}"
        return headers

    def complete(self, request: ModelRequest) -> ModelReply:
        """Post the request (trying again on 429 and 5xx) and read the first choice.

        Raises:
            ToolsRefusedError: the server says the model does not take tools.
            ModelError: the server is away, ran past the deadline (waits included), answered an
                HTTP error (after the retries, for 429 and 5xx) or something that is not a chat
                completion.
        """
        body = json.dumps(request.to_openai(self.model)).encode()
        headers = self._headers()
        url = f"{self.base_url}/chat/completions"
        if self._tls is None:
            self._tls = httpx.create_ssl_context()
        deadline = time.monotonic() + self.timeout
        attempt = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ModelError(
                    f"the model server at {url} did not answer within {self.timeout:g} s"
                )
            # To the millisecond: a timeout says "within 1 s", not the 0.999999 s left of it.
            left = max(round(left, 3), 0.001)
            answer = post(
                url, body, headers, timeout=left, max_body=self.max_body, verify=self._tls
            )
            if 200 <= answer.status < 300:
                return read_completion(answer.body, url)
            detail = error_detail(answer.body)
            if answer.status in RETRY_STATUSES and attempt < self.max_retries:
                named = retry_after(dict(answer.headers).get("retry-after"))
                wait = named if named is not None else self.backoff * 2**attempt
                if time.monotonic() + wait < deadline:
                    attempt += 1
                    self.retries += 1
                    self.sleep(wait)
                    continue
                detail = (
                    f"{detail}; waiting {wait:g} s more would pass the {self.timeout:g} s deadline"
                )
            if request.tools and any(h in detail.lower() for h in REFUSAL_HINTS):
                raise ToolsRefusedError(f"{self.model} does not take tools ({detail})")
            tries = f" after {attempt + 1} tries" if attempt else ""
            raise ModelError(
                f"the model server at {url} answered HTTP {answer.status}{tries}: "
                f"{detail or answer.reason or 'no reason given'}"
            )

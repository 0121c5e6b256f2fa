"""Retry policy for model calls: exponential backoff with full jitter.

Attempt ``a`` (0-based) waits ``uniform(0, min(max_delay, base_delay · 2^a))`` seconds, or the
server's ``Retry-After`` when it sends one (capped at ``max_delay``).  Retryable: HTTP 408,
409, 429, any 5xx, timeouts, dropped connections and unreadable responses.  Everything else
(400, 401, 403, 404, 422...) fails at once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = [
    "RETRYABLE_STATUS",
    "RetryPolicy",
    "is_retryable_status",
    "parse_retry_after",
]


RETRYABLE_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 8
    base_delay: float = 1.0
    max_delay: float = 60.0
    request_timeout: float = 1800.0

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay)
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * (2**attempt)))

    def to_json(self) -> dict[str, float]:
        return {
            "max_retries": self.max_retries,
            "base_delay": self.base_delay,
            "max_delay": self.max_delay,
            "request_timeout": self.request_timeout,
        }


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header given in seconds (HTTP dates are ignored)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None

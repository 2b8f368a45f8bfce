"""A Redis cache that degrades to "nothing cached" while Redis is unreachable.

Everything the project keeps in the cache can be recomputed (image access answers) or is also in
the database (sessions), so a Redis outage must cost speed, never a failed request: a mark saved
while Redis is down is saved. After a failure the cache is not asked again for a few seconds, so
each request does not wait for a connection attempt.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
T = TypeVar("T")
# Seconds to leave Redis alone after it failed.
PAUSE_S = 5.0


class DegradingRedisCache(RedisCache):
    _down_until = 0.0

    def _try(self, default: T, call: Callable[[], T]) -> T:
        if time.monotonic() < self._down_until:
            return default
        try:
            return call()
        except (RedisError, OSError) as exc:
            log.warning("cache unreachable, working without it for %g s: %s", PAUSE_S, exc)
            type(self)._down_until = time.monotonic() + PAUSE_S
            return default

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._try(default, lambda: super(DegradingRedisCache, self).get(key, default, version))

    def get_many(self, keys: Any, version: Any = None) -> dict:
        return self._try({}, lambda: super(DegradingRedisCache, self).get_many(keys, version))

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._try(False, lambda: super(DegradingRedisCache, self).has_key(key, version))

    def add(self, key: Any, value: Any, timeout: Any = 300, version: Any = None) -> bool:
        return self._try(False, lambda: super(DegradingRedisCache, self).add(key, value, timeout, version))

    def set(self, key: Any, value: Any, timeout: Any = 300, version: Any = None) -> None:
        self._try(None, lambda: super(DegradingRedisCache, self).set(key, value, timeout, version))

    def set_many(self, data: Any, timeout: Any = 300, version: Any = None) -> list:
        return self._try(list(data), lambda: super(DegradingRedisCache, self).set_many(data, timeout, version))

    def touch(self, key: Any, timeout: Any = 300, version: Any = None) -> bool:
        return self._try(False, lambda: super(DegradingRedisCache, self).touch(key, timeout, version))

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._try(False, lambda: super(DegradingRedisCache, self).delete(key, version))

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._try(None, lambda: super(DegradingRedisCache, self).delete_many(keys, version))

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        # A counter that cannot be read is not silently reset: callers (rate limits) decide.
        return super().incr(key, delta, version)

    def clear(self) -> None:
        self._try(None, lambda: super(DegradingRedisCache, self).clear())

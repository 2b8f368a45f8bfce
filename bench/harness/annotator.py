"""One simulated annotator of bench/load.py: logged in as the workspace is (session cookie + CSRF
token), on a scene assigned to them, drawing marks of the four kinds, editing them (PATCH with the
version) and deleting some, at the workspace's pace or back to back.

A write the server did not answer (connection error, 502/503/504) is sent again, unchanged, with
backoff (Retry-After when given) until it is answered, as the workspace's save queue does. That is
safe because a create carries its client key (a retry returns the mark the first one made) and an
edit or delete its version (a retry of one that was applied answers 409 with our own content at
version + 1, or 404 for a delete: the client recognises its write). The ledger records every
acknowledged write with the content sent, for the check against the database at the end."""

from __future__ import annotations

import http.client
import json
import math
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.marks import Client

TRANSIENT = (0, 502, 503, 504)  # 0: no answer (refused, reset, timed out)
BACKOFF_S = (0.25, 0.5, 1.0, 2.0, 4.0)
POINT_LABELS = ("car", "van", "truck", "bus", "pedestrian", "cyclist", "boat")
REGION_LABELS = ("parking lot", "roundabout", "intersection", "field", "building", "park", "road")
CONTENT = ("geometry", "label", "time_start", "time_end", "vertex_times", "facts")


def draw(rng: random.Random, kind: str, width: int, height: int, duration: float) -> dict[str, Any]:
    """A mark as an annotator draws it: geometry inside the image, a label, a time anchor and facts.
    Values are what the server stores unchanged (rings closed, labels spelled as the set has them)."""
    cx, cy = rng.uniform(60, width - 60), rng.uniform(60, height - 60)
    t0 = round(rng.uniform(0, duration * 0.6), 2)
    content: dict[str, Any] = {"time_start": t0, "time_end": None, "vertex_times": []}
    if kind == "point":
        content["geometry"] = {"type": "Point", "coordinates": [round(cx, 1), round(cy, 1)]}
    elif kind == "ellipse":
        radii = [round(rng.uniform(6, 45), 1), round(rng.uniform(6, 45), 1)]
        geometry = {"type": "Ellipse", "center": [round(cx, 1), round(cy, 1)], "radii": radii}
        content["geometry"] = {**geometry, "rotation": round(rng.uniform(0, 180), 1)}
    elif kind == "polygon":  # star-shaped around its centre, so always a simple polygon
        n = rng.randint(4, 7)
        angles = [2 * math.pi * (k + rng.uniform(0.1, 0.9)) / n for k in range(n)]
        ring = [[round(cx + r * math.cos(a), 1), round(cy + r * math.sin(a), 1)]
                for a, r in ((a, rng.uniform(15, 55)) for a in angles)]  # fmt: skip
        content["geometry"] = {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}
        content["time_end"] = round(rng.uniform(t0, duration), 2)
    else:  # a trajectory: a walk across the image, one time per vertex
        pts, (x, y) = [], (cx, cy)
        for _ in range(rng.randint(3, 8)):
            pts.append([round(x, 1), round(y, 1)])
            x, y = min(max(x + rng.uniform(-40, 40), 1), width - 1), min(max(y + rng.uniform(-40, 40), 1), height - 1)
        content["geometry"] = {"type": "LineString", "coordinates": pts}
        content["vertex_times"] = sorted(round(rng.uniform(t0, duration), 2) for _ in pts)
    regional = kind in ("polygon", "ellipse")
    content["label"] = rng.choice(REGION_LABELS if kind == "polygon" else POINT_LABELS)
    content["facts"] = {"visible": rng.random() < 0.7, **({"count": rng.randint(0, 12)} if regional else {})}
    return content


@dataclass
class Ledger:
    """What one client knows for certain at the end: its live marks (last acknowledged content and
    version), its acknowledged deletes, and the writes whose outcome it never learned."""

    user: str
    marks: dict[str, dict[str, Any]] = field(default_factory=dict)  # client key -> id, version, content
    deleted: list[str] = field(default_factory=list)
    in_doubt: list[str] = field(default_factory=list)
    acked: Counter[str] = field(default_factory=Counter)  # create / edit / delete
    recognised: int = 0  # writes applied whose answer was lost, recognised on a retry
    statuses: Counter[str] = field(default_factory=Counter)  # every answer that was not 2xx
    bare_503: int = 0  # 503s without Retry-After or a JSON sentence
    latencies: list[float] = field(default_factory=list)
    last_ack: float = 0.0
    began: float = 0.0  # epoch s: this client's first and last moment of work
    ended: float = 0.0


class Annotator:
    def __init__(self, port: int, user: dict[str, Any], *, seed: int, think: float, until: float, grace: float):
        self.http = Client(port, {"session": user["session"]})
        self.user, self.rng, self.think = user, random.Random(seed), think
        self.until, self.give_up = until, until + grace
        self.ledger = Ledger(user=user["username"])

    # ---- one request, and one write until it is answered ------------------------------------
    def _send(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any, float | None]:
        began = time.monotonic()
        for fresh in (False, True):
            try:
                self.http.conn.request(method, path, body=json.dumps(body) if body else None, headers=self.http.headers)
                response = self.http.conn.getresponse()
                raw, status = response.read(), response.status
                retry_after = response.getheader("Retry-After")
                break
            except (OSError, http.client.HTTPException) as exc:
                self.http.conn.close()  # http.client connects again on the next request
                # The server closed a kept-alive connection (after a pause, or after an error
                # answer): connect again at once, as a browser does. Anything else is no answer.
                stale = isinstance(exc, BrokenPipeError | ConnectionResetError | http.client.RemoteDisconnected)
                if fresh or not stale:
                    self.ledger.latencies.append(time.monotonic() - began)
                    return 0, None, None
        self.ledger.latencies.append(time.monotonic() - began)
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = None
        if status == 503 and not (retry_after and isinstance(data, dict) and data.get("detail")):
            self.ledger.bare_503 += 1
        return status, data, float(retry_after) if retry_after else None

    def _answered(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any, bool] | None:
        """Send until the server answers with something other than a transient failure; returns
        (status, body, sent more than once), or None when it never did before the grace ended."""
        for attempt in range(10_000):
            status, data, retry_after = self._send(method, path, body)
            if status not in TRANSIENT:
                return status, data, attempt > 0
            self.ledger.statuses[str(status) if status else "no answer"] += 1
            pause = retry_after if retry_after is not None else BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
            if time.time() + pause > self.give_up:
                return None
            time.sleep(min(pause, BACKOFF_S[-1]) * self.rng.uniform(0.8, 1.2))
        return None

    def _acked(self, op: str) -> None:
        self.ledger.acked[op] += 1
        self.ledger.last_ack = time.time()

    # ---- the three writes -------------------------------------------------------------------
    def create(self) -> None:
        kind = self.rng.choice(("point", "ellipse", "polygon", "polyline"))
        content = draw(self.rng, kind, self.user["width"], self.user["height"], self.user["duration"])
        key = str(uuid.uuid4())
        body = {"satellite_image": self.user["image"], "kind": kind, "client_key": key, **content}
        answer = self._answered("POST", f"/api/scenes/{self.user['scene']}/marks/", body)
        if answer is None:
            self.ledger.in_doubt.append(key)
            return
        status, data, retried = answer
        if status in (200, 201):
            self.ledger.marks[key] = {"id": data["id"], "version": data["version"], "kind": kind, "content": content}
            self.ledger.recognised += status == 200 and retried
            self._acked("create")
        else:
            self.ledger.statuses[str(status)] += 1

    def edit(self, key: str) -> None:
        mark = self.ledger.marks[key]
        fresh = draw(self.rng, mark["kind"], self.user["width"], self.user["height"], self.user["duration"])
        # what a person changes in one go: the shape (a trajectory's times with it), the label,
        # the facts, the time anchor, or everything
        fields = self.rng.choice(
            (("geometry", "vertex_times"), ("label",), ("facts",), ("time_start", "time_end"), CONTENT)
        )
        changes = {f: fresh[f] for f in fields}
        wanted = {**mark["content"], **changes}
        answer = self._answered("PATCH", f"/api/marks/{mark['id']}/", {"version": mark["version"], **changes})
        if answer is None:
            self.ledger.in_doubt.append(key)
            return
        status, data, retried = answer
        current = (data or {}).get("current") if status == 409 else None
        if status == 200:
            mark.update(version=data["version"], content=wanted)
            self._acked("edit")
        elif current and retried and current["version"] == mark["version"] + 1 and _same(current, wanted):
            mark.update(version=current["version"], content=wanted)  # ours: applied, its answer lost
            self.ledger.recognised += 1
            self._acked("edit")
        else:
            self.ledger.statuses[str(status)] += 1
            if current:  # someone else's write (none expected here): carry on from what is stored
                mark.update(version=current["version"], content={f: current[f] for f in CONTENT})

    def delete(self, key: str) -> None:
        mark = self.ledger.marks[key]
        answer = self._answered("DELETE", f"/api/marks/{mark['id']}/?version={mark['version']}", None)
        if answer is None:
            self.ledger.in_doubt.append(key)
            del self.ledger.marks[key]
            return
        status, _, retried = answer
        if status == 204 or (status == 404 and retried):  # 404 on a retry: the first one deleted it
            self.ledger.recognised += status == 404
            del self.ledger.marks[key]
            self.ledger.deleted.append(key)
            self._acked("delete")
        else:
            self.ledger.statuses[str(status)] += 1

    def run(self, start_at: float) -> Ledger:
        time.sleep(max(0.0, start_at - time.time()))
        self.ledger.began = time.time()
        while time.time() < self.until and not self.ledger.in_doubt:
            if self.think:
                time.sleep(self.rng.expovariate(1 / self.think))
            mine = list(self.ledger.marks)
            roll = self.rng.random()
            if not mine or roll < 0.35:
                self.create()
            elif roll < 0.9:
                self.edit(self.rng.choice(mine))
            else:
                self.delete(self.rng.choice(mine))
        self.ledger.ended = time.time()
        return self.ledger


def _same(current: dict[str, Any], wanted: dict[str, Any]) -> bool:
    return all(current.get(f) == wanted[f] for f in CONTENT)


def run_group(port: int, users: list[dict[str, Any]], seeds: list[int], plan: dict[str, float]) -> list[Ledger]:
    """One process's share of the annotators, each in its own thread (they mostly wait: on the
    server or in their pauses)."""
    from concurrent.futures import ThreadPoolExecutor

    clients = [
        Annotator(port, u, seed=s, think=plan["think"], until=plan["until"], grace=plan["grace"])
        for u, s in zip(users, seeds, strict=False)
    ]
    with ThreadPoolExecutor(len(clients)) as pool:
        return list(pool.map(lambda c: c.run(plan["start"]), clients))

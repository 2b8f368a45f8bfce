"""The clients of bench/scale.py: the annotation unit (4 marks + 1 compile), scene and list reads,
the review queue and a blind step, each timed per request, run by N processes at once."""

from __future__ import annotations

import math
import multiprocessing
import time
import uuid
from collections import defaultdict
from typing import Any

# Run as a script, bench/ is first on the path: server start, clients and memory are shared helpers.
from marks import Client


def unit_marks(i: int, image: int) -> list[dict[str, Any]]:
    """An 8-vertex polygon, a point, an ellipse, a 20-vertex timed trajectory, near (x0, y0)."""
    x0, y0 = 150 + (i * 37) % 600, 150 + (i * 53) % 600
    ring = [[round(x0 + 40 * math.cos(a), 1), round(y0 + 40 * math.sin(a), 1)] for a in
            (2 * math.pi * k / 8 for k in range(8))]  # fmt: skip
    track = [[round(x0 - 80 + 8 * k, 1), round(y0 + 10 * math.sin(k / 3), 1)] for k in range(20)]
    times = [round(0.1 * k, 2) for k in range(20)]
    # Each create carries the key the workspace draws for it (static/js/workspace/store.js), as a
    # user's page sends it: a retry is told apart by it.
    base = {"satellite_image": image, "time_start": 0.0}
    key = [{"client_key": str(uuid.uuid4())} for _ in range(4)]
    return [
        {**base, "kind": "polygon", "label": "parking lot", "geometry": {"type": "Polygon", "coordinates": [ring]},
         "facts": {"visible": True, "first_seen_s": 0.0}, **key[0]},
        {**base, "kind": "point", "label": "car", "geometry": {"type": "Point", "coordinates": [x0, y0 + 60]},
         **key[1]},
        {**base, "kind": "ellipse", "label": "van", "geometry": {"type": "Ellipse", "center": [x0 + 50, y0],
                                                                 "radii": [6, 4], "rotation": 30}, **key[2]},
        {**base, "kind": "polyline", "label": "car", "time_end": times[-1], "vertex_times": times,
         "geometry": {"type": "LineString", "coordinates": track}, "facts": {"future_action": "stops",
                                                                             "reaches": False}, **key[3]},
    ]  # fmt: skip


# ---- clients (each in its own process) ---------------------------------------------------------


def _timed(client: Client, out: dict[str, list[float]], name: str, method: str, path: str, **kw: Any) -> Any:
    began = time.perf_counter()
    status, body = client.call(method, path, **kw)
    out[name].append(time.perf_counter() - began)
    if status not in (200, 201, 304):
        raise RuntimeError(f"{method} {path}: HTTP {status} {str(body)[:300]}")
    return body


def _units(port: int, who: dict[str, Any], n: int, offset: int) -> dict[str, list[float]]:
    client, out = Client(port, who), defaultdict(list)
    for i in range(n):
        began = time.perf_counter()
        url = f"/api/scenes/{who['draw']}/marks/"
        ids = [_timed(client, out, f"POST mark ({m['kind']})", "POST", url, body=m)["id"]
               for m in unit_marks(offset + i, who["image"])]  # fmt: skip
        body = {"task": "region_interaction", "mark_ids": [ids[3], ids[0]], "active_seconds": 30}
        _timed(client, out, "POST item compile", "POST", "/api/items/", body=body)
        out["unit"].append(time.perf_counter() - began)
    return out


def _reads(port: int, who: dict[str, Any], n: int, _offset: int) -> dict[str, list[float]]:
    client, out = Client(port, who), defaultdict(list)
    marks, items = f"/api/scenes/{who['read']}/marks/?limit=500", f"/api/items/?scene={who['read']}&limit=500"
    for _ in range(n):
        _timed(client, out, "GET scene marks", "GET", marks)
        etag = client.last_headers.get("ETag")
        if etag:
            _timed(client, out, "GET scene marks, If-None-Match", "GET", marks, headers={"If-None-Match": etag})
        _timed(client, out, "GET items of the scene", "GET", items)
    return out


def _review(port: int, who: dict[str, Any], n: int, _offset: int) -> dict[str, list[float]]:
    client, out = Client(port, who), defaultdict(list)
    for _ in range(n):
        queue = _timed(client, out, "GET review queue", "GET", "/api/review/queue/")
        if not queue["results"]:
            break
        began = time.perf_counter()
        item = queue["results"][0]["id"]
        page = _timed(client, out, "GET blind item", "GET", f"/api/review/items/{item}/")
        answer = (page.get("options") or ["3"])[0]
        review = _timed(client, out, "POST blind answer", "POST", f"/api/review/items/{item}/answer/",
                        body={"blind_answer": answer, "answer_seconds": 12})  # fmt: skip
        out["blind step (item + answer)"].append(time.perf_counter() - began)
        # decided, so that the item leaves this reviewer's queue
        _timed(client, out, "POST decision", "POST", f"/api/reviews/{review['id']}/decision/",
               body={"decision": "approve", "decision_seconds": 5})  # fmt: skip
    return out


def _load(fn: Any, port: int, people: list[dict[str, Any]], clients: int, n: int, offset: int) -> tuple[dict, float]:
    """`clients` processes each running fn(n); merged latencies and the wall time."""
    with multiprocessing.Pool(clients) as pool:
        began = time.perf_counter()
        parts = pool.starmap(fn, [(port, people[c], n, offset + 1000 * c) for c in range(clients)])
        wall = time.perf_counter() - began
    merged: dict[str, list[float]] = defaultdict(list)
    for part in parts:
        for key, values in part.items():
            merged[key] += values
    return merged, wall


# ---- one tree on one backend -------------------------------------------------------------------

"""The "with CVAA" variant of every released item: where the drone frames the item is about lie on
the picture a model is shown, serialized after the question as the seed paper's alignment prior
(LinkS2Bench 4.5.1: the box [x1, y1, x2, y2] of the UAV frame on the satellite image, "serialized and
concatenated with the user question"), computed at the freeze and frozen in the record.

Which keyframes an item is about, from what the question itself names (never from its key):
- an instant (provenance `time_s`: event geo-localization, zone counting, relative direction) or
  two (`times_s`: relative distance): the keyframe nearest each;
- an interval (`segment_s`, `interval_s`: scene association, trajectory matching): the keyframes
  nearest its start, middle and end;
- anything else is about the whole video (target visibility, temporal grounding, ordering, occlusion,
  interaction, reachability): the keyframes nearest 0, 25, 50, 75 and 100 % of it. Temporal grounding
  and ordering ask *when* something is seen; their first-seen times are the key and are not used.

Each keyframe's footprint comes from its placement on the satellite image the item's marks are on
(annotator.models.KeyframePlacement: the current one per keyframe and image). The box is the
footprint's bounding box moved into the pixels of the picture shown first (the model view: the
whole image, or for lettered candidates the cut around them, scaled as the renderer scales) and
clipped to it. A keyframe gets no box, and the text says so instead of guessing, when it has no
placement, when its confidence is under the release's threshold, or when its footprint misses the
picture shown; the reason is kept and counted in the datasheet.

What is frozen where: a placement is a fact of its frame, and many items share a keyframe (most are
about the whole video of their scene), so the release keeps one frame table, a row per (scene,
keyframe, satellite image) some item names, with the locator, confidence, uncertainty, the box in
image pixels and why it gives no box (the release's sources; cvaa_frames.jsonl in the build). Each
ReleaseItem's record keeps only what is its own: the with-CVAA question, the status, the image and
keyframes it names, and their boxes on its picture. Both are written at the freeze, so a later
re-placement changes no built release; a new version picks it up (and lists the item as changed)."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from annotator.models import Keyframe, KeyframePlacement, SatelliteImage, Scene

# Shares of the video sampled for an item about all of it.
WHOLE_VIDEO = (0.0, 0.25, 0.5, 0.75, 1.0)
TIME_KEYS = ("time_s", "times_s")
INTERVAL_KEYS = ("segment_s", "interval_s")
NO_PLACEMENT = "no placement"
LOW_CONFIDENCE = "confidence below the threshold"
OUTSIDE = "footprint outside the picture shown"
AXES = "pixels from the top-left corner"
PLACEMENT_CHUNK = 10_000  # keyframe ids per query (under SQLite's limit of 32,766 variables)


def asked_times(provenance: dict[str, Any], duration_s: float | None) -> list[float]:
    """The video times an item is about (module docstring), in order, before snapping to keyframes."""
    for key in TIME_KEYS:
        value = provenance.get(key)
        if isinstance(value, int | float):
            return [float(value)]
        if isinstance(value, list) and value:
            return [float(t) for t in value]
    for key in INTERVAL_KEYS:
        span = provenance.get(key)
        if isinstance(span, list) and len(span) == 2:
            start, end = float(span[0]), float(span[1])
            return [start, (start + end) / 2, end]
    if duration_s:
        return [share * float(duration_s) for share in WHOLE_VIDEO]
    return [0.0]


def nearest(times: list[float], t: float) -> int:
    """Index in sorted `times` of the one nearest `t` (the earlier on a tie)."""
    k = bisect.bisect_left(times, t)
    if k == 0:
        return 0
    if k == len(times):
        return len(times) - 1
    return k if times[k] - t < t - times[k - 1] else k - 1


def picture_frame(record: dict[str, Any], image: dict[str, Any]) -> dict[str, Any]:
    """Where the picture shown first sits in the satellite image's pixels: `crop` (left, top, right,
    bottom) and its `size` once scaled, as the model view renderer makes it (Base.prepared); for the
    scene's own image (no model view), the image itself."""
    images = record["media"].get("images") or []
    shown = images[0] if images else ""
    width, height = int(image["width"]), int(image["height"])
    crop = (0, 0, width, height)
    if not shown.startswith("media/items/"):
        # an item without a model view shows the scene's images as stored: the one its marks are on
        index = next((k for k, p in enumerate(images) if image["sha256"] in p.rsplit("/", 1)[-1]), 0)
        return {"picture": images[index] if images else "", "crop": list(crop), "size": [width, height],
                "count": len(images), "index": index}  # fmt: skip
    from media_tools.imagery.modelview import MAX_VIEW_SIDE

    if record["provenance"].get("candidates"):
        crop = _lettered_crop(record["provenance"], image)
    cw, ch = crop[2] - crop[0], crop[3] - crop[1]
    s = min(1.0, MAX_VIEW_SIDE / max(cw, ch))
    size = (max(1, round(cw * s)), max(1, round(ch * s))) if s < 1.0 else (cw, ch)
    return {"picture": shown, "crop": list(crop), "size": list(size), "count": len(images), "index": 0}


def _lettered_crop(provenance: dict[str, Any], image: dict[str, Any]) -> tuple[int, int, int, int]:
    # The renderer's own cut (annotator.compiling.modelview.lettered_crop), from the same plan; the
    # imaging modules load here, in the freeze of a release with lettered items, not at import.
    from annotator.compiling.modelview.plan import lettered_crop, view_plan

    facts = SatelliteImage(width=image["width"], height=image["height"], valid_area=image["valid_area"])  # unsaved
    found = lettered_crop(view_plan(provenance), facts)
    return found if found is not None else (0, 0, int(image["width"]), int(image["height"]))


def to_picture(box: list[float], frame: dict[str, Any]) -> list[int] | None:
    """A box in satellite pixels -> integer pixels of the picture shown, clipped to it; None when
    nothing of it is on the picture."""
    left, top, right, bottom = frame["crop"]
    w, h = frame["size"]
    sx, sy = w / (right - left), h / (bottom - top)
    x1, x2 = max(0.0, (box[0] - left) * sx), min(float(w), (box[2] - left) * sx)
    y1, y2 = max(0.0, (box[1] - top) * sy), min(float(h), (box[3] - top) * sy)
    if x2 <= x1 or y2 <= y1:
        return None
    return [round(x1), round(y1), round(x2), round(y2)]


def _box_of(quad: list[list[float]]) -> list[float]:
    xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
    return [min(xs), min(ys), max(xs), max(ys)]


def frame_row(
    scene: str, image_sha: str, keyframe: tuple[int, float], placement: dict[str, Any] | None, min_confidence: float
) -> dict[str, Any]:
    """One row of the release's frame table: a keyframe of a scene on a satellite image, its placement
    as frozen (what _placements keeps of the row) and, when the placement gives no box, why."""
    index, time_s = keyframe
    row: dict[str, Any] = {"scene": scene, "keyframe": index, "image": image_sha, "time_s": round(time_s, 3)}
    if placement is None:
        return {**row, **dict.fromkeys(PLACEMENT_FIELDS), "reason": NO_PLACEMENT}
    low = placement["confidence"] < min_confidence
    return {
        **row,
        "source": placement["source"],
        "confidence": round(placement["confidence"], 4),
        "uncertainty_px": round(placement["uncertainty_px"], 2),
        "uncertainty_m": placement["uncertainty_m"],
        "box_image": placement["box_image"],
        "reason": LOW_CONFIDENCE if low else None,
    }


PLACEMENT_FIELDS = ("source", "confidence", "uncertainty_px", "uncertainty_m", "box_image")


def picture_box(row: dict[str, Any], frame: dict[str, Any]) -> list[int] | None:
    """A frame row's box on the picture shown (None when it gives none or misses the picture)."""
    return None if row["reason"] is not None else to_picture(row["box_image"], frame)


def keyframe_reason(row: dict[str, Any], box: list[int] | None) -> str | None:
    """Why a keyframe of an item has no box: its row's reason, or that it misses the picture."""
    return None if box is not None else row["reason"] or OUTSIDE


def _seconds(t: float) -> str:
    return f"{t:.1f} s"


def _box_text(box: list[int]) -> str:
    return "[" + ", ".join(str(v) for v in box) + "]"


def prior_text(keyframes: list[dict[str, Any]], frame: dict[str, Any]) -> str:
    """The sentence appended to the question: the boxes as the paper serializes them, or that there
    is none, naming the picture when several are shown."""
    count = frame["count"]
    picture = "the satellite image" if count <= 1 else f"satellite image {frame['index'] + 1} of the {count} shown"
    placed = [k for k in keyframes if k["box"] is not None]
    if not placed:
        return f"CVAA alignment prior: none (no reliable placement of the drone frames on {picture})."
    if len(keyframes) == 1:
        (k,) = keyframes
        return (
            f"CVAA alignment prior: the drone frame at {_seconds(k['time_s'])} of the video lies in the box "
            f"[x1, y1, x2, y2] = {_box_text(k['box'])} of {picture} ({AXES})."
        )
    parts = [
        f"frame at {_seconds(k['time_s'])}: " + (_box_text(k["box"]) if k["box"] is not None else "no reliable box")
        for k in keyframes
    ]
    return f"CVAA alignment prior, boxes [x1, y1, x2, y2] of {picture} ({AXES}): " + "; ".join(parts) + "."


def status_of(keyframes: list[dict[str, Any]]) -> str:
    placed = sum(k["box"] is not None for k in keyframes)
    return "none" if placed == 0 else "placed" if placed == len(keyframes) else "partial"


def with_cvaa_question(question: str, prior: str) -> str:
    return f"{question}\n{prior}"


def _keyframes_of(video_ids: set[int]) -> dict[int, tuple[list[float], list[tuple[int, int, float]]]]:
    """Video -> (sorted times, (id, index, time) in the same order)."""
    out: dict[int, tuple[list[float], list[tuple[int, int, float]]]] = {}
    rows: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for kid, video_id, index, time_s in (
        Keyframe.objects.filter(video_id__in=video_ids).order_by("video_id", "time_s", "index")
        .values_list("id", "video_id", "index", "time_s")
    ):  # fmt: skip
        rows[video_id].append((kid, index, time_s))
    for video_id, frames in rows.items():
        out[video_id] = ([t for _, _, t in frames], frames)
    return out


def _placements(keyframe_ids: Iterable[int], image_ids: set[int]) -> dict[tuple[int, int], dict[str, Any]]:
    """(keyframe id, image id) -> what a record keeps of that placement, worked out once per row (many
    items share a keyframe); a chunk of keyframes per query, the images picked here (an IN list of
    every image in each query cost more than the rows it saved)."""
    ids = sorted(set(keyframe_ids))
    fields = ("keyframe_id", "satellite_image_id", "source", "quad", "confidence", "uncertainty_px", "uncertainty_m")
    out = {}
    for start in range(0, len(ids), PLACEMENT_CHUNK):
        # unordered: one row per keyframe and image (a unique pair) goes into a dict
        rows = KeyframePlacement.objects.filter(keyframe_id__in=ids[start : start + PLACEMENT_CHUNK]).order_by()
        for kid, image_id, source, quad, confidence, unc_px, unc_m in rows.values_list(*fields):
            if image_id not in image_ids:
                continue
            out[(kid, image_id)] = {
                "source": source,
                "confidence": float(confidence),
                "uncertainty_px": float(unc_px),
                "uncertainty_m": None if unc_m is None else round(float(unc_m), 2),
                "box_image": [round(v, 2) for v in _box_of(quad)],
            }
    return out


def priors_attach(
    records: list[dict[str, Any]], item_ids: list[int], scene_of: dict[int, int], *, min_confidence: float
) -> list[dict[str, Any]]:
    """Give every record its `cvaa` block (the with-CVAA question, its status, the satellite image and
    the keyframes it is about with their boxes on the picture), in place, and return the release's
    frame table: one row per (scene, keyframe, image) some item refers to, with the placement it came
    from. A placement is a fact of its frame, not of the item: kept once per release (many items share
    a keyframe), the records name it by (scene, keyframe, image). `scene_of`: item id -> scene id (the
    videos are read per scene: a release has a tenth as many). A handful of queries in all."""
    scene_video = dict(Scene.objects.filter(id__in=set(scene_of.values())).values_list("id", "video_id"))
    video_of = {item_id: scene_video[scene_of[item_id]] for item_id in item_ids}
    image_of: dict[str, int | None] = {}
    for record in records:
        marks = record["provenance"].get("marks") or []
        image_of[record["id"]] = marks[0].get("satellite_image") if marks else None
    images: dict[int, dict[str, Any]] = {
        row["id"]: dict(row)
        for row in SatelliteImage.objects.filter(id__in={i for i in image_of.values() if i is not None}).values(
            "id", "width", "height", "valid_area", "sha256"
        )
    }
    keyframes = _keyframes_of(set(video_of.values()))
    chosen: dict[str, tuple[tuple[int, int, float], ...]] = {}
    for record, item_id in zip(records, item_ids, strict=True):
        times, frames = keyframes.get(video_of[item_id], ([], []))
        # a video not probed yet has no duration; its last keyframe bounds it
        duration = record.get("video", {}).get("duration_s") or (times[-1] if times else None)
        asked = asked_times(record["provenance"], duration)
        picked = [frames[nearest(times, t)] for t in asked] if frames else []
        chosen[record["id"]] = tuple(dict.fromkeys(picked))  # one entry per keyframe, in time order
    placements = _placements((k[0] for ks in chosen.values() for k in ks), set(images))
    table: dict[tuple[int, int], dict[str, Any]] = {}  # (keyframe id, image id) -> its frame row
    # Items of one scene about the same frames on the same picture share their prior: most of a
    # release's items are about the whole video.
    shared: dict[tuple[Any, ...], tuple[str, str, list[list[int] | None]]] = {}
    frames_seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for record in records:
        image_id = image_of[record["id"]]
        image = images.get(image_id) if image_id is not None else None
        if image is None:  # no marks: no satellite image the item is about, so no picture a box could be on
            record["cvaa"] = _block(record, "none", _NO_PRIOR, None, [], [])
            continue
        frame = _frame_of(record, image, frames_seen)
        mine = chosen[record["id"]]
        rows = []
        for kid, index, time_s in mine:
            row = table.get((kid, image["id"]))
            if row is None:
                placement = placements.get((kid, image["id"]))
                row = table[(kid, image["id"])] = frame_row(
                    record["scene"], image["sha256"], (index, time_s), placement, min_confidence
                )
            rows.append(row)
        # what the boxes and the text depend on: not the picture's path (each model view has its own)
        key = (image_id, *frame["crop"], *frame["size"], frame["count"], frame["index"], *(k[0] for k in mine))
        if key not in shared:
            boxes = [picture_box(row, frame) for row in rows]
            entries = [{"time_s": row["time_s"], "box": box} for row, box in zip(rows, boxes, strict=True)]
            shared[key] = (status_of(entries), prior_text(entries, frame), boxes)
        status, prior, boxes = shared[key]
        record["cvaa"] = _block(record, status, prior, image["sha256"], [k[1] for k in mine], boxes)
    return sorted(table.values(), key=lambda r: (r["scene"], r["image"], r["keyframe"]))


def _frame_of(
    record: dict[str, Any], image: dict[str, Any], seen: dict[tuple[Any, ...], dict[str, Any]]
) -> dict[str, Any]:
    """picture_frame, once per image and pictures shown for items without a model view (a scene's
    items show the same stored images); a model view's frame depends on the item's own plan."""
    images = record["media"].get("images") or []
    if images and images[0].startswith("media/items/"):
        return picture_frame(record, image)
    key = (image["id"], *images)
    if key not in seen:
        seen[key] = picture_frame(record, image)
    return seen[key]


_NO_PRIOR = "CVAA alignment prior: none (no reliable placement of the drone frames on the satellite image)."


def _block(
    record: dict[str, Any], status: str, prior: str, image: str | None, keyframes: list[int], boxes: list[Any]
) -> dict[str, Any]:
    """What a record keeps of its prior: the with-CVAA question (the sentence is its last line, kept
    nowhere else), the status, and the keyframes (indices into the frame table of its scene and
    `image`, the satellite image's sha256) with each one's box on the picture shown (null: none,
    and the frame table or the picture says why)."""
    return {
        "question": with_cvaa_question(record["question"], prior),
        "status": status,
        "image": image,
        "keyframes": keyframes,
        "boxes": boxes,
    }


def frames_by_key(frames: list[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    """The frame table by what a record names: (scene, image sha256, keyframe index)."""
    return {(f["scene"], f["image"], f["keyframe"]): f for f in frames}


def keyframes_of(record: dict[str, Any], by_key: dict[tuple[str, str, int], dict[str, Any]]) -> list[dict[str, Any]]:
    """A record's keyframes as rows of the frame table, each with its `box` on the picture shown and
    its `reason` for having none (records frozen before the table kept these in the record)."""
    block = record.get("cvaa") or {}
    if "boxes" not in block:
        return list(block.get("keyframes", []))
    return [{**row, "box": box, "reason": keyframe_reason(row, box)} for row, box in rows_of(record, by_key)]


def rows_of(
    record: dict[str, Any], by_key: dict[tuple[str, str, int], dict[str, Any]]
) -> list[tuple[dict[str, Any], list[int] | None]]:
    """(frame table row, box on the picture) per keyframe of a record that has its row, without
    copying the row (the datasheet counts every item's frames); none for a record frozen before
    the frame table (its block holds its keyframes)."""
    block = record.get("cvaa") or {}
    if "boxes" not in block:
        return []
    scene, image = str(record["scene"]), str(block.get("image"))
    out = []
    for index, box in zip(block.get("keyframes", []), block.get("boxes", []), strict=True):
        row = by_key.get((scene, image, index))
        if row is not None:
            out.append((row, box))
    return out

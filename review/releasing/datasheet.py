"""The release's datasheet: one HTML page with PNG figures (matplotlib, no clock or version in the
image metadata, so a rebuild gives the same bytes). The figures are inside the page as data URIs,
so it reads the same opened from the zip, downloaded alone or served by the releases page; the
PNG files ship beside it for reuse. Counts per task and dimension, key-position
balance, reviewer agreement, rejection reasons, the human baseline with intervals, where the scenes
are, the licenses of the source media, and known limitations."""

from __future__ import annotations

import base64
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

from django.template.loader import render_to_string

from review.quality.agreement import fleiss_kappa, krippendorff_alpha, percent_agreement
from review.quality.baseline import human_baseline
from review.scoring.metrics import choice_bias

from . import splits
from .formats import write_text

FIGURE_META = {"Software": None}  # matplotlib writes its version otherwise
TINY_PER_TASK = 60


@cache
def _figure() -> Any:
    """matplotlib's Figure, imported on first use: the URL configuration imports this module
    (releases page -> services -> build), and a web process should not carry matplotlib for the
    release builds that run in a worker. Figures are made without pyplot: no global figure
    registry to close, and a build does not pay for importing pyplot and its backends."""
    from matplotlib.figure import Figure

    return Figure


def _subplots(figsize: tuple[float, float]) -> tuple[Any, Any]:
    fig = _figure()(figsize=figsize)
    return fig, fig.subplots()


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata=FIGURE_META)
    return path


def _bar(path: Path, counts: dict[str, int] | dict[str, float], title: str, xlabel: str) -> Path:
    fig, ax = _subplots((8, max(2.5, 0.35 * len(counts) + 1)))
    names = list(counts)
    ax.barh(names, [counts[n] for n in names], color="#4a78b5")
    ax.invert_yaxis()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    fig.tight_layout()
    return _save(fig, path)


def _positions(path: Path, records: list[dict[str, Any]]) -> tuple[Path, dict[str, dict[str, float]]]:
    from matplotlib import colormaps

    per_task: dict[str, list[int]] = defaultdict(list)
    width: dict[str, int] = {}
    for r in records:
        options = [str(o) for o in r["options"]]
        if options and str(r["answer"]) in options:
            per_task[r["task"]].append(options.index(str(r["answer"])))
            width[r["task"]] = max(width.get(r["task"], 0), len(options))
    fig, ax = _subplots((8, max(2.5, 0.35 * len(per_task) + 1)))
    stats = {}
    for row, (task, positions) in enumerate(sorted(per_task.items())):
        counts = Counter(positions)
        left = 0.0
        for k in range(width[task]):
            share = counts.get(k, 0) / len(positions)
            ax.barh(row, share, left=left, color=colormaps["tab10"](k % 10), edgecolor="white")
            left += share
        stats[task] = choice_bias(positions, width[task])
    ax.set_yticks(range(len(per_task)), sorted(per_task))
    ax.invert_yaxis()
    ax.set_xlabel("share of keys at option A, B, C, ... (left to right)")
    ax.set_title("Answer-key positions per task")
    fig.tight_layout()
    return _save(fig, path), stats


def _yes_no(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per yes/no task: the keys, the wording, and the share of yes keys under each wording."""
    rows = []
    tasks = sorted({r["task"] for r in records if r["answer_format"] == "yes_no"})
    for task in tasks:
        mine = [r for r in records if r["task"] == task and r["answer_format"] == "yes_no"]
        worded = {
            w: [r for r in mine if r["provenance"].get("polarity", "positive") == w] for w in ("positive", "negative")
        }
        share = {w: (sum(r["answer"] == "yes" for r in rs) / len(rs) if rs else None) for w, rs in worded.items()}
        rows.append(
            {
                "task": task,
                "yes": sum(r["answer"] == "yes" for r in mine),
                "no": sum(r["answer"] == "no" for r in mine),
                "positive": len(worded["positive"]),
                "negative": len(worded["negative"]),
                "yes_if_positive": share["positive"],
                "yes_if_negative": share["negative"],
            }
        )
    return rows


def _scenes_map(path: Path, scenes: list[dict[str, Any]]) -> Path | None:
    located = [s for s in scenes if s.get("center_latlon")]
    if not located:
        return None
    fig, ax = _subplots((6, 4))
    ax.scatter([s["center_latlon"][1] for s in located], [s["center_latlon"][0] for s in located], color="#c0392b")
    for s in located:
        lat, lon = s["center_latlon"]
        ax.annotate(s["name"], (lon, lat), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("longitude (°E)")
    ax.set_ylabel("latitude (°N)")
    ax.set_title("Where the georeferenced scenes are")
    fig.tight_layout()
    return _save(fig, path)


def _agreement(records: list[dict[str, Any]], human: dict[str, list[Any]]) -> list[dict[str, Any]]:
    per_task: dict[str, list[list[Any]]] = defaultdict(list)
    for r in records:
        if len(human.get(r["id"], [])) >= 2:
            per_task[r["task"]].append(human[r["id"]])
    return [
        {
            "task": task,
            "items": len(ratings),
            "percent": percent_agreement(ratings),
            "fleiss": fleiss_kappa(ratings),
            "alpha": krippendorff_alpha(ratings),
        }
        for task, ratings in sorted(per_task.items())
    ]


def _cvaa(records: list[dict[str, Any]], cvaa: dict[str, Any]) -> dict[str, Any]:
    """The "with CVAA" variant in numbers: per task the items whose every frame has a box, some, or
    none; the keyframes of the items by the locator that placed them and by why they have no box.
    `cvaa`: the release's threshold and frame table (sources["cvaa"])."""
    from .alignment import frames_by_key, keyframe_reason, keyframes_of, rows_of

    per_task: dict[str, Counter[str]] = defaultdict(Counter)
    sources: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    by_key = frames_by_key(cvaa.get("frames", []))
    for r in records:
        block = r.get("cvaa") or {}
        per_task[r["task"]][block.get("status", "none")] += 1
        if "boxes" not in block:  # frozen before the frame table: the record has the keyframes
            for k in keyframes_of(r, by_key):
                if k["box"] is not None:
                    sources[k["source"]] += 1
                else:
                    reasons[k["reason"]] += 1
            continue
        for row, box in rows_of(r, by_key):
            if box is not None:
                sources[row["source"]] += 1
            else:
                reasons[str(keyframe_reason(row, box))] += 1
    rows: list[dict[str, Any]] = [
        {"task": t, "placed": c["placed"], "partial": c["partial"], "none": c["none"], "items": sum(c.values())}
        for t, c in sorted(per_task.items())
    ]
    totals = {k: sum(row[k] for row in rows) for k in ("placed", "partial", "none", "items")}
    return {
        "tasks": rows,
        "totals": totals,
        "sources": dict(sorted(sources.items())),
        "reasons": dict(sorted(reasons.items())),
        "min_confidence": cvaa.get("min_confidence"),
    }


def _limitations(records: list[dict[str, Any]], scenes: list[dict[str, Any]], human: dict[str, list[Any]]) -> list[str]:
    tasks = Counter(r["task"] for r in records)
    notes = [
        f"{t}: {n} items, fewer than the {TINY_PER_TASK} of a full tiny split"
        for t, n in sorted(tasks.items())
        if n < TINY_PER_TASK
    ]
    unlocated = [s["name"] for s in scenes if not s.get("center_latlon")]
    if unlocated:
        names = ", ".join(unlocated[:10])
        notes.append(f"{len(unlocated)} scene(s) without a georeferenced image (no GeoJSON, not on the map): {names}")
    unlicensed = [s["name"] for s in scenes if not s.get("license")]
    if unlicensed:
        notes.append(f"{len(unlicensed)} scene(s) with no license recorded: " + ", ".join(unlicensed[:10]))
    without = sum(1 for r in records if not human.get(r["id"]))
    if without:
        notes.append(f"{without} item(s) have no blind answer, so the human baseline leaves them out")
    unplaced = sum(1 for r in records if (r.get("cvaa") or {}).get("status", "none") == "none")
    if unplaced:
        notes.append(
            f"{unplaced} item(s) have no CVAA alignment prior (no keyframe placed with enough confidence on their "
            "satellite image); their with-CVAA question says so instead of giving a box"
        )
    notes.append(
        "Keys are as the reviewers approved them, with the options in the order the release gave them and yes/no "
        "questions asked the way it chose (provenance.release); answers that geometry decides come from the marks "
        "at the versions recorded in each item's provenance."
    )
    return notes


def write(root: Path, *, version: str, records: list[dict[str, Any]], sources: dict[str, Any]) -> list[Path]:
    """datasheet/index.html and its figures. `sources`: human answers, scenes, rejection reasons."""
    out = root / "datasheet"
    human: dict[str, list[Any]] = defaultdict(list)
    for row in sources.get("human", []):
        human[row["id"]].append(row["answer"])
    scenes = sources.get("scenes", [])
    tasks = dict(sorted(Counter(r["task"] for r in records).items()))
    dims = dict(sorted(Counter(r["dimension"] for r in records).items()))
    files = [
        _bar(out / "tasks.png", tasks, "Items per task", "items"),
        _bar(out / "dimensions.png", dims, "Items per dimension", "items"),
    ]
    positions_png, balance = _positions(out / "key_positions.png", records)
    files.append(positions_png)
    reasons = dict(sorted(Counter(sources.get("rejections", {})).items(), key=lambda kv: (-kv[1], kv[0])))
    if reasons:
        files.append(_bar(out / "rejections.png", reasons, "Rejection reasons (reviews of these scenes)", "reviews"))
    baseline = human_baseline(records, human) if human else {}
    if baseline:
        shown = {k: v.value for k, v in baseline.items()}
        files.append(_bar(out / "human_baseline.png", shown, "Human baseline (blind answers)", "score"))
    map_png = _scenes_map(out / "scenes.png", scenes)
    if map_png:
        files.append(map_png)
    # an empty split (a release from one scene group has no train) is a limitation too
    share = sources.get("splits", {}).get("test_share", splits.TEST_SHARE)
    split_warnings = splits.report(records, test_share=share)["warnings"]
    figures = {p.stem: "data:image/png;base64," + base64.b64encode(p.read_bytes()).decode("ascii") for p in files}
    page = render_to_string(
        "review/datasheet.html",
        {
            "figures": figures,
            "version": version,
            "n_items": len(records),
            "n_scenes": len(scenes),
            "tasks": tasks,
            "dims": dims,
            "balance": balance,
            "yes_no": _yes_no(records),
            "cvaa": _cvaa(records, sources.get("cvaa", {})),
            "held_back": sorted(sources.get("held_back", []), key=lambda h: h["id"]),
            "balance_yes_no": sources.get("balance_yes_no", True),
            "agreement": _agreement(records, human),
            "reasons": reasons,
            "baseline": baseline,
            "scenes": scenes,
            "has_map": map_png is not None,
            "limitations": split_warnings + _limitations(records, scenes, human),
        },
    )
    files.append(write_text(out / "index.html", page))
    return files

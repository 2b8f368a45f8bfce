"""review.releasing.formats.variants with drawing and scoring: a circular rotation of items whose
options are candidates lettered on the image shows images lettered as its options are, so a model
that always names the true candidate is 100 % circular on every task and a model that answers by
position is not; with no rotated predictions the circular column says "not scored"."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.storage import default_storage

from annotator.compiling.modelview import image_name, lettered_crop, view_plan
from annotator.compiling.services import item_compile
from annotator.models import SatelliteImage
from media_tools.imagery import Shape, draw_option
from media_tools.imagery.modelview import OPTION_MAX_SIDE
from review.releasing.services import release_build
from review.scoring.services import release_score, submission_create
from tests.annotator.compiling.builders import north_up_georef
from tests.annotator.compiling.test_compile_each_task import CASES, Marks
from tests.review.releasing.compiled import records_of, render_and_approve, root_of

pytestmark = pytest.mark.django_db
LETTERS = "ABCDEFGH"


@pytest.fixture
def every_task(annotator: Any, admin: Any) -> Any:
    """Release 1.0 of one item of each of the 12 tasks, compiled and rendered as the flow does."""
    items = []
    for task, (case, _fmt, _n) in sorted(CASES.items()):
        marks, _ = case(Marks(annotator, georef=north_up_georef()))
        items.append(item_compile(user=annotator, task=task, mark_ids=[m.id for m in marks], seed=5))
    render_and_approve(items)
    # one yes/no item per task: balancing yes and no would hold it back
    return release_build(version="1.0", user=admin, balance_yes_no=False)


class Reader:
    """Reads a lettered record's pictures the way a model that knows the true place would: the
    option whose picture is the true candidate drawn with that option's letter."""

    def __init__(self, root: Path, folder: Path):
        self.root, self.folder = root, folder

    def truth_letter(self, original: dict[str, Any], shown: dict[str, Any]) -> str:
        plan = view_plan(original["provenance"])
        _letter, truth, _colour = plan.options[original["options"].index(original["answer"])]
        image = SatelliteImage.objects.get(id=plan.image_id)
        src = Path(default_storage.path(image_name(image)))
        found = []
        for position, option in enumerate(shown["media"]["option_images"]):
            drawn = self.folder / f"{option['option']}.jpg"
            shape = Shape(truth.geometry, option["option"], truth.times)
            colour = plan.options[position][2]  # colours go with positions, like letters
            draw_option(src, drawn, shape, colour=colour, crop=lettered_crop(plan, image), max_side=OPTION_MAX_SIDE,
                        max_pixels=settings.SKYMARK_MAX_IMAGE_PIXELS)  # fmt: skip
            if drawn.read_bytes() == (self.root / option["image"]).read_bytes():
                found.append(option["option"])
        assert len(found) == 1, (shown["id"], found)
        return found[0]


def _predictions(items: list[dict[str, Any]], rotations: list[dict[str, Any]], answer: Any) -> str:
    return "".join(json.dumps({"id": r["id"], "answer": answer(r)}) + "\n" for r in [*items, *rotations])


def test_an_always_right_model_is_fully_circular_on_every_task_and_a_positional_one_is_not(
    every_task: Any, admin: Any, media_root: Path, client: Any
) -> None:
    release = every_task
    root = root_of(release, media_root)
    items = records_of(release, media_root)
    rotations = records_of(release, media_root, "variants/circular.jsonl")
    original = {r["id"]: r for r in items}
    assert len(items) == 12
    lettered = {r["task"] for r in items if r["provenance"].get("candidates")}
    assert lettered == {"scene_association", "event_geolocalization", "trajectory_matching"}

    # the rotations of lettered items show their own pictures, lettered as their options are
    listed = {f["path"] for f in release.manifest["files"]}
    for rotation in (r for r in rotations if r["task"] in lettered):
        base = original[rotation["circular_of"]]
        assert rotation["options"] == base["options"] == ["A", "B", "C", "D"]
        assert rotation["answer"] != base["answer"]  # the true candidate has another letter now
        assert rotation["media"]["images"][0].startswith("media/")  # stored by content
        pictures = [rotation["media"]["images"][0], *(o["image"] for o in rotation["media"]["option_images"])]
        assert set(pictures) <= listed
        shown = [(root / p).read_bytes() for p in pictures]
        before = [(root / p).read_bytes() for p in [base["media"]["images"][0],
                                                    *(o["image"] for o in base["media"]["option_images"])]]  # fmt: skip
        assert all(a != b for a, b in zip(shown, before, strict=True))

    with tempfile.TemporaryDirectory() as tmp:
        reader = Reader(root, Path(tmp))

        def always_right(record: dict[str, Any]) -> Any:
            base = original.get(record.get("circular_of", record["id"]))
            assert base is not None
            if record["task"] in lettered:
                letter = reader.truth_letter(base, record)
                assert letter == record["answer"]  # what the picture says is the key of the record
                return letter
            return base["answer"]  # the true option's text (or the number / time)

        def by_position(record: dict[str, Any]) -> Any:
            base = original[record.get("circular_of", record["id"])]
            if not base["options"]:
                return base["answer"]
            return LETTERS[base["options"].index(base["answer"])]  # where the key sat in the original

        right = release_score(release=release, text=_predictions(items, rotations, always_right), filename="a.jsonl")
        positional = release_score(
            release=release, text=_predictions(items, rotations, by_position), filename="b.jsonl"
        )

    # then the always-right model is 100 % circular on all 12 tasks
    assert len(right.tasks) == 12
    assert {t: (row.score, row.circular) for t, row in right.tasks.items()} == dict.fromkeys(right.tasks, (1.0, 1.0))
    assert right.circular_overall == 1.0
    # and the model that answers by position is right in the original order only
    for task, row in positional.tasks.items():
        if any(r["options"] for r in items if r["task"] == task):
            assert (row.score, row.circular) == (1.0, 0.0), task
    assert positional.circular_overall is not None and positional.circular_overall < 0.25

    # when only the original items are predicted / then circular is not scored, not 0 %
    text = _predictions(items, [], lambda r: r["answer"])
    report = release_score(release=release, text=text, filename="c.jsonl")
    assert {row.circular for row in report.tasks.values()} == {None} and report.circular_overall is None
    submission_create(release=release, name="originals only", data=text.encode(), filename="c.jsonl", user=admin)
    client.force_login(admin)
    page = client.get(f"/releases/{release.version}/leaderboard/").content.decode()
    assert (
        'data-testid="circular"><span class="muted small" title="no rotated predictions were submitted">not scored'
        in page
    )

"""seed_demo on an install seeded by an earlier release: demo scenes that lack a job kind added since
(the placements) get it created and queued; nothing else is sent again."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotator.models import MediaJob, Scene
from tests.factories import tiny_video

pytestmark = pytest.mark.django_db


def test_a_demo_scene_seeded_before_the_placements_existed_gets_the_job(
    tmp_path: Path, django_capture_on_commit_callbacks
) -> None:
    # given a one-scene demo manifest, seeded once, and its scene's placements job gone (as before it existed)
    shutil.copy(tiny_video(), tmp_path / "clip.mp4")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"scenes": [{"name": "Clip", "video": "clip.mp4", "satellite_from_keyframe_s": 0}]}))
    args = ["--manifest", str(manifest), "--credentials", str(tmp_path / "credentials.txt")]
    call_command("seed_demo", *args, stdout=StringIO())
    scene = Scene.objects.get(name="Clip")
    ran = MediaJob.objects.filter(scene=scene) | MediaJob.objects.filter(satellite_image__scenes=scene)
    MediaJob.objects.filter(id__in=ran.values("id")).update(state=MediaJob.State.SUCCEEDED, attempts=1)
    scene.jobs.filter(kind=MediaJob.Kind.PLACEMENTS).delete()

    # when seeded again
    out = StringIO()
    with django_capture_on_commit_callbacks() as sent:
        call_command("seed_demo", *args, stdout=out)

    # then the scene has its placements job, pending and sent, and only that one went out
    job = scene.jobs.get(kind=MediaJob.Kind.PLACEMENTS)
    assert job.state == "pending" and len(sent) == 1
    assert "queued 1 job(s) the demo scenes lacked (placements)" in out.getvalue()

    # and once a worker has run it, seeding again sends nothing
    MediaJob.objects.filter(id=job.id).update(state=MediaJob.State.SUCCEEDED, attempts=1)
    with django_capture_on_commit_callbacks() as again:
        call_command("seed_demo", *args, stdout=StringIO())
    assert len(again) == 0

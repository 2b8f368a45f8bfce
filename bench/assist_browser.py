"""Clicks and seconds per trajectory in the workspace: drawn by hand against tracked and confirmed.

A scripted Chromium session on the Saro scene imported as the demo imports it (the map is the first
frame warped north-up with the surveyed control points), served by `manage.py runserver` on a fresh
database with tasks run inline (the tracking job runs inside its request). One car (the one the browser
test tracks) over the whole clip (10 s; the import runs the placements job inline, so every keyframe is
placed):

  - by hand: the Trajectory tool (T), then per vertex: step the video (".", or Shift+-> for one per
    second) and click the car's true position on the map; Enter finishes. The script clicks the truth
    (the label's centre through its frame's control-point homography): no searching, no misses, no
    thinking, so its seconds are a floor for a person and its error is zero by construction;
  - assisted: Shift+click the car in the video, K, wait for the draft, Confirm.

Prints clicks, key presses, seconds and vertices per trajectory, and the assisted draft's position error
on the map against the truth (metres). Usage: python bench/assist_browser.py [--port P]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VIDEOS = ROOT.parent / "shared" / "testdata" / "videos"
CHROMIUM = Path(os.environ.get("SKYMARK_CHROMIUM", "/usr/bin/chromium"))
CAR = (1181.5, 484.0)  # video pixels at 0 s: tests/e2e/test_workspace_assist.py
STRETCH_S = 10.0
PASSWORD = "bench-password-1234"  # noqa: S105  (a throwaway user of a temporary database)

SEED = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from annotator.intake.services import SceneSpec, scene_import
from annotator.models import ProjectMembership, project_default_id
from media_tools.geo import read_gcp_csv
from pathlib import Path
u = get_user_model().objects.create_user(username="ann", password="{password}")
u.groups.add(Group.objects.get_or_create(name="annotator")[0])
ProjectMembership.objects.get_or_create(project_id=project_default_id(), user=u, role="annotator")
v = Path("{videos}")
s = scene_import(spec=SceneSpec(name="Saro", video=v / "saro_roundabout_topdown_1080p_3fps.mp4",
    orthophoto_from_keyframe_s=0, gcps=[list(p) for p in read_gcp_csv(v / "saro_roundabout_gcp_pixels_1080p.csv")],
    annotators=["ann"]), created_by=None)
print("SCENE", s.id, s.satellite_images.get().id)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SKYMARK_DATA_DIR": str(data),
        "SECRET_KEY": "bench",
        "DJANGO_DEBUG": "1",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": "",
    }


def _serve(data: Path, port: int) -> tuple[subprocess.Popen[bytes], int, int]:
    env, py = _env(data), sys.executable
    subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    seed = SEED.format(password=PASSWORD, videos=VIDEOS)
    out = subprocess.run([py, "manage.py", "shell", "-c", seed], cwd=ROOT, env=env, check=True, capture_output=True)
    _, scene_id, image_id = next(line for line in out.stdout.decode().splitlines() if line.startswith("SCENE")).split()
    server = subprocess.Popen(
        [py, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    return server, int(scene_id), int(image_id)


class Session:
    """The page, with every click and key press counted."""

    def __init__(self, page: object) -> None:
        self.page = page
        self.clicks = 0
        self.keys = 0

    def click(self, x: float, y: float, *, shift: bool = False) -> None:
        p = self.page
        if shift:
            p.keyboard.down("Shift")  # type: ignore[attr-defined]
        p.mouse.click(x, y)  # type: ignore[attr-defined]
        if shift:
            p.keyboard.up("Shift")  # type: ignore[attr-defined]
        self.clicks += 1

    def key(self, name: str) -> None:
        self.page.keyboard.press(name)  # type: ignore[attr-defined]
        self.keys += 1


def _open(page: object, base: str, scene_id: int) -> None:
    page.goto(f"{base}/scenes/{scene_id}/workspace/")  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('video').readyState >= 1")  # type: ignore[attr-defined]
    page.fill("#mark-label", "car")  # type: ignore[attr-defined]
    page.locator("#map").click(position={"x": 5, "y": 5})  # type: ignore[attr-defined]


def _seek0(page: object) -> None:
    page.evaluate("Skymark.workspace.cursor.seek(0)")  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('video').currentTime < 0.01")  # type: ignore[attr-defined]


def _map_xy(page: object, x: float, y: float) -> tuple[float, float]:
    px, py = page.evaluate(f"Skymark.workspace.pixelOf({x}, {y})")  # type: ignore[attr-defined]
    box = page.locator("#map").bounding_box()  # type: ignore[attr-defined]
    return box["x"] + px, box["y"] + py


def by_hand(page: object, truth: list[tuple[float, float]], step_key: str, every: int) -> dict[str, float]:
    """The Trajectory tool, one vertex per `every` frames (the step key moves that far)."""
    _seek0(page)
    s = Session(page)
    t0 = time.perf_counter()
    s.key("t")
    for n, i in enumerate(range(0, len(truth), every)):
        if n:
            s.key(step_key)
            page.wait_for_function("!document.getElementById('video').seeking")  # type: ignore[attr-defined]
        s.click(*_map_xy(page, *truth[i]))
        page.wait_for_timeout(60)  # type: ignore[attr-defined]
    s.key("Enter")
    page.wait_for_function("document.getElementById('status').dataset.state === 'saved'")  # type: ignore[attr-defined]
    seconds = time.perf_counter() - t0
    s.key("Escape")
    return {"clicks": s.clicks, "keys": s.keys, "seconds": seconds, "vertices": len(range(0, len(truth), every))}


def assisted(page: object) -> tuple[dict[str, float], int]:
    _seek0(page)
    s = Session(page)
    video = page.locator("#video").bounding_box()  # type: ignore[attr-defined]
    vw, vh = page.evaluate("(v => [v.videoWidth, v.videoHeight])(document.getElementById('video'))")  # type: ignore[attr-defined]
    scale = min(video["width"] / vw, video["height"] / vh)
    left, top = video["x"] + (video["width"] - vw * scale) / 2, video["y"] + (video["height"] - vh * scale) / 2
    t0 = time.perf_counter()
    s.click(left + CAR[0] * scale, top + CAR[1] * scale, shift=True)
    s.key("k")
    page.wait_for_selector("#assist-confirm:not(.hidden)", timeout=120_000)  # type: ignore[attr-defined]
    s.click(*_centre(page.locator("#assist-confirm").bounding_box()))  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('assist-status').textContent === 'Trajectory confirmed'")  # type: ignore[attr-defined]
    seconds = time.perf_counter() - t0
    mark_id = int(page.evaluate("Skymark.workspace.ws.selectedId"))  # type: ignore[attr-defined]
    n = int(page.evaluate(f"Skymark.workspace.store.get({mark_id}).vertex_times.length"))  # type: ignore[attr-defined]
    return {"clicks": s.clicks, "keys": s.keys, "seconds": seconds, "vertices": n}, mark_id


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _truth(image_georef: dict) -> tuple[list[tuple[float, float]], dict[int, object], float, object]:
    """The car's true map position per frame of the stretch, the truth homographies and m/px."""
    import numpy as np

    from media_tools.assist.saro import saro_setup
    from media_tools.geo import GeoReference

    with tempfile.TemporaryDirectory() as tmp:
        setup = saro_setup(VIDEOS, Path(tmp), image_ref=GeoReference.from_dict(image_georef))
    path = min(setup.paths, key=lambda p: float(np.hypot(*(p.centre(p.frames[0]) - CAR))) if p.frames[0] == 0 else 1e9)
    frames = [i for i in path.frames if setup.frames[i].time_s <= STRETCH_S + 1e-6]
    points = []
    for i in frames:
        q = setup.truth[i] @ np.array([*path.centre(i), 1.0])
        points.append((float(q[0] / q[2]), float(q[1] / q[2])))
    return points, {i: setup.frames[i].time_s for i in frames}, setup.metres_per_px, path


def _error(page: object, mark_id: int, truth: list[tuple[float, float]], times: dict[int, float], gsd: float) -> dict:
    import numpy as np

    mark = page.evaluate(f"Skymark.workspace.store.get({mark_id})")  # type: ignore[attr-defined]
    by_t = {round(t, 2): xy for t, xy in zip(times.values(), truth, strict=True)}
    errs = [
        float(np.hypot(p[0] - by_t[round(t, 2)][0], p[1] - by_t[round(t, 2)][1])) * gsd
        for p, t in zip(mark["geometry"]["coordinates"], mark["vertex_times"], strict=True)
        if round(t, 2) in by_t
    ]
    return {"mean_m": round(float(np.mean(errs)), 3), "p90_m": round(float(np.percentile(errs, 90)), 3), "n": len(errs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = args.port or _free_port()
    with tempfile.TemporaryDirectory(prefix="bench-assist-browser-") as data:
        server, scene_id, image_id = _serve(Path(data), port)
        try:
            read = f"import json; from annotator.models import SatelliteImage as S; print(json.dumps(S.objects.get(id={image_id}).georef))"  # noqa: E501
            shell = [sys.executable, "manage.py", "shell", "-c", read]
            out = subprocess.run(shell, cwd=ROOT, env=_env(Path(data)), check=True, capture_output=True)
            georef = json.loads(out.stdout.decode().strip().splitlines()[-1])
            truth, times, gsd, _ = _truth(georef)
            base = f"http://127.0.0.1:{port}"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
                page.goto(f"{base}/login/")
                page.fill("#id_username", "ann")
                page.fill("#id_password", PASSWORD)
                page.click("button[type=submit]")
                page.wait_for_url(lambda url: "/login/" not in url)
                _open(page, base, scene_id)
                rows = {
                    "by hand, a vertex per frame": by_hand(page, truth, ".", 1),
                    "by hand, a vertex per second": by_hand(page, truth, "Shift+ArrowRight", 3),
                }
                result, mark_id = assisted(page)
                rows["tracked and confirmed"] = result
                error = _error(page, mark_id, truth, times, gsd)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(
        f"Saro car at {CAR} px, 0-{STRETCH_S:g} s ({len(truth)} frames); workspace in Chromium, runserver, tasks inline"
    )
    print(f"{'trajectory':<30}{'clicks':>7}{'keys':>6}{'actions':>9}{'seconds':>9}{'vertices':>10}")
    for name, r in rows.items():
        actions = r["clicks"] + r["keys"]
        print(f"{name:<30}{r['clicks']:>7}{r['keys']:>6}{actions:>9}{r['seconds']:>9.2f}{r['vertices']:>10}")
    print(
        f"tracked draft against the truth: mean {error['mean_m']} m, p90 {error['p90_m']} m over {error['n']} vertices"
    )


if __name__ == "__main__":
    main()

"""media_tools.ffmpeg_run: ffmpeg-python graphs and probes run with the caller's binary, a time limit,
the log kept for the reason, and every failure turned into a MediaError a person can act on."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import ffmpeg
import pytest

from media_tools import MediaError, extract_frame, keyframes, make_proxy, probe_video
from media_tools.ffmpeg_run import FfmpegError, probe, run
from media_tools.video import cut_segment
from tests.factories import tiny_video


def _running_with(token: str) -> list[int]:
    """Ids of processes whose command line mentions `token` (a folder only this test uses)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:  # ended meanwhile
                continue
            if token.encode() in cmdline and int(entry.name) != os.getpid():
                found.append(int(entry.name))
    return found


def _gray_frames(src: Path, count: int) -> ffmpeg.nodes.OutputStream:
    """The first `count` frames of `src` as raw 8-bit gray pixels on stdout."""
    return (
        ffmpeg.input(str(src))["V:0"]
        .output("pipe:", format="rawvideo", pix_fmt="gray", **{"frames:v": count})
        .global_args("-nostdin", "-loglevel", "warning")
    )


def test_a_graph_runs_and_its_output_comes_back() -> None:
    # given the 64x48 test clip / when three gray frames are written to stdout
    out = run(_gray_frames(tiny_video(), 3), source=tiny_video(), failed="reading failed", capture_stdout=True)
    # then exactly three frames of 64x48 one-byte pixels arrive, and they are not blank
    assert len(out) == 3 * 64 * 48
    assert len(set(out)) > 10


def test_a_damaged_file_fails_with_its_name_and_the_reason(bad_media: dict[str, Path], tmp_path: Path) -> None:
    # given an MP4 cut off after its first 1000 bytes, in a folder of the server's
    damaged = bad_media["truncated"]
    graph = ffmpeg.input(str(damaged)).output(str(tmp_path / "frame.png"), **{"frames:v": 1})

    # when a frame is asked of it
    with pytest.raises(FfmpegError) as err:
        run(graph.global_args("-nostdin", "-loglevel", "warning"), source=damaged, failed="reading failed")

    # then the message names the file, says why in words a person can act on, and hides the folder
    message = str(err.value)
    assert message == (
        "truncated.mp4: not a readable video (the file is truncated or incomplete: its MP4 index is missing; "
        "upload it again)"
    )
    assert err.value.reason == message.removeprefix("truncated.mp4: ")
    assert not (tmp_path / "frame.png").exists()


def test_an_unknown_failure_keeps_ffmpegs_last_line_without_the_folder(tmp_path: Path) -> None:
    # given a request for a stream the clip does not have (a tenth video stream), in a folder
    src = tmp_path / "clip.mp4"
    src.write_bytes(tiny_video().read_bytes())
    graph = ffmpeg.input(str(src))["v:9"].output(str(tmp_path / "out.png")).global_args("-nostdin")

    # when run / then the reason is the fallback with ffmpeg's words, the folder left out
    with pytest.raises(FfmpegError) as err:
        run(graph.global_args("-loglevel", "error"), source=src, failed="reading failed")
    assert str(err.value) == "clip.mp4: no video stream found"

    bad_option = ffmpeg.input(str(src)).output(str(tmp_path / "out.png"), **{"c:v": "no-such-codec"})
    with pytest.raises(FfmpegError) as err:
        run(bad_option.global_args("-nostdin", "-loglevel", "error"), source=src, failed="reading failed")
    assert str(err.value) == "clip.mp4: reading failed (Unknown encoder 'no-such-codec')"

    # and an output ffmpeg cannot write is named without its folder either
    unwritable = ffmpeg.input(str(src)).output(str(tmp_path / "no-such-folder" / "out.mp4"), **{"frames:v": 1})
    with pytest.raises(FfmpegError) as err:
        run(unwritable.global_args("-nostdin", "-loglevel", "error"), source=src, failed="writing failed")
    assert str(err.value) == "clip.mp4: writing failed (out.mp4: No such file or directory)"


def test_ffmpeg_is_stopped_at_the_time_limit(tmp_path: Path) -> None:
    # given a 30 s test pattern read in real time (-re), so that it takes 30 s to run
    endless = (
        ffmpeg.input("testsrc=size=64x48:rate=10", format="lavfi", re=None, t=30)
        .output(str(tmp_path / "slow.mp4"))
        .global_args("-nostdin", "-loglevel", "warning")
    )

    # when it may run for 0.5 s / then it is stopped, and the message says what happened to which file
    with pytest.raises(MediaError) as err:
        run(endless, source=Path("/srv/media/clip.mp4"), failed="frame extraction failed", timeout_s=0.5)
    assert str(err.value) == (
        "clip.mp4: frame extraction failed: ffmpeg was stopped after 0.5 s without finishing "
        "(the file may be damaged, or too long for the time allowed)"
    )
    # and no ffmpeg is left running on it
    assert _running_with(str(tmp_path)) == []


COMMANDS = {
    "keyframes": lambda src, out, t: keyframes(src, out / "kf", fps=1.0, timeout_s=t),
    "extract_frame": lambda src, out, t: extract_frame(src, out / "frame.jpg", time_s=0.5, timeout_s=t),
    "make_proxy": lambda src, out, t: make_proxy(src, out / "proxy.mp4", info=probe_video(src), timeout_s=t),
    "cut_segment": lambda src, out, t: cut_segment(
        src, out / "seg.mp4", info=probe_video(src), start_s=0.3, end_s=1.5, timeout_s=t
    ),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_keeps_its_time_limit_and_leaves_nothing(tmp_path: Path, command: str) -> None:
    # given the test clip and an empty output folder
    out = tmp_path / "out"
    out.mkdir()
    # when the command may run for a millisecond (ffmpeg cannot even start its work in that time)
    with pytest.raises(MediaError) as err:
        COMMANDS[command](tiny_video(), out, 0.001)
    # then it says it was stopped, for the clip, and nothing was written
    assert str(err.value).startswith("tiny_64x48_10fps_2s.mp4: ")
    assert "ffmpeg was stopped after 0.001 s without finishing" in str(err.value)
    assert list(out.rglob("*")) == []


def test_each_command_finishes_within_a_generous_limit(tmp_path: Path) -> None:
    # given limits far above what the 2 s clip needs / when each command runs / then each writes its file
    for name, command in COMMANDS.items():
        (tmp_path / name).mkdir()
        command(tiny_video(), tmp_path / name, 600)
    assert len(list((tmp_path / "keyframes" / "kf").glob("frame_*.jpg"))) == 2
    assert [p.name for p in (tmp_path / "extract_frame").iterdir()] == ["frame.jpg"]
    assert [p.name for p in (tmp_path / "make_proxy").iterdir()] == ["proxy.mp4"]
    assert [p.name for p in (tmp_path / "cut_segment").iterdir()] == ["seg.mp4"]


def test_a_failing_callback_stops_ffmpeg(tmp_path: Path) -> None:
    # given the same 30 s real-time run, its progress followed on stdout by a callback that gives up
    endless = (
        ffmpeg.input("testsrc=size=64x48:rate=10", format="lavfi", re=None, t=30)
        .output(str(tmp_path / "slow.mp4"))
        .global_args("-nostdin", "-loglevel", "warning", "-progress", "pipe:1")
    )
    seen: list[str] = []

    def give_up(line: str) -> None:
        seen.append(line)
        assert threading.current_thread() is threading.main_thread()
        if line.startswith("progress="):
            raise KeyboardInterrupt

    # when the callback raises / then the error reaches the caller and ffmpeg is not left running
    with pytest.raises(KeyboardInterrupt):
        run(endless, source=Path("clip.mp4"), failed="failed", on_stdout=give_up)
    assert seen[-1] == "progress=continue\n"
    assert _running_with(str(tmp_path)) == []


def test_stderr_lines_reach_the_caller_and_those_it_takes_stay_out_of_the_reason(tmp_path: Path) -> None:
    # given a graph that reports each frame (showinfo) and then cannot write its output
    src = tmp_path / "clip.mp4"
    src.write_bytes(tiny_video().read_bytes())
    graph = (
        ffmpeg.input(str(src))["V:0"]
        .filter("showinfo")
        .output(str(tmp_path / "no-such-folder" / "f_%03d.png"))
        .global_args("-nostdin", "-loglevel", "info")
    )
    frames: list[str] = []

    def frame_report(line: str) -> bool:
        assert threading.current_thread() is threading.main_thread()
        if "Parsed_showinfo" in line and " n:" in line:
            frames.append(line)
        return "Parsed_showinfo" in line

    # when run with a follower that takes the per-frame lines
    with pytest.raises(FfmpegError) as err:
        run(graph, source=src, failed="writing frames failed", on_stderr=frame_report)

    # then the frame reports reached it, in this thread, and the reason is ffmpeg's own last message
    assert frames and " n:   0 " in frames[0]
    assert str(err.value) == "clip.mp4: writing frames failed (Conversion failed!)"

    # and when the follower takes every line, none is left for the reason: it is the fallback alone
    with pytest.raises(FfmpegError) as err:
        run(graph, source=src, failed="writing frames failed", on_stderr=lambda line: True)
    assert str(err.value) == "clip.mp4: writing frames failed"


def test_a_missing_binary_is_named() -> None:
    graph = _gray_frames(tiny_video(), 1)
    with pytest.raises(MediaError, match=r"^no-such-ffmpeg is not installed; install ffmpeg$"):
        run(graph, source=tiny_video(), failed="failed", cmd="no-such-ffmpeg", capture_stdout=True)
    with pytest.raises(MediaError, match=r"^no-such-ffprobe is not installed; install ffmpeg$"):
        probe(tiny_video(), cmd="no-such-ffprobe")


def test_a_binary_that_cannot_be_run_is_named(tmp_path: Path) -> None:
    # given a file where the ffmpeg binary is configured, without permission to run it
    fake = tmp_path / "ffmpeg"
    fake.write_text("not a program\n")
    fake.chmod(0o644)
    with pytest.raises(MediaError, match=r"ffmpeg cannot be run \(Permission denied\); check that it is an ffmpeg"):
        run(_gray_frames(tiny_video(), 1), source=tiny_video(), failed="failed", cmd=str(fake))


def test_probe_returns_what_was_asked_for() -> None:
    # given the 2 s, 10 fps clip / when its packets are probed besides its streams
    data = probe(tiny_video(), select_streams="V:0", show_entries="packet=pts_time,flags")
    # then the stream and all 20 packets are there, the first a keyframe
    assert data["streams"][0]["width"] == 64
    assert len(data["packets"]) == 20
    assert data["packets"][0]["flags"].startswith("K")
    assert float(data["format"]["duration"]) == pytest.approx(2.0)


def test_probe_of_a_damaged_file_names_it(bad_media: dict[str, Path]) -> None:
    with pytest.raises(FfmpegError) as err:
        probe(bad_media["text"])
    assert str(err.value) == "notes.mp4: not a readable video (its contents are not a video format ffmpeg knows)"

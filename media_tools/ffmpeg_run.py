"""Running ffmpeg and ffprobe: one place for the binaries, time limits, logs and failures.

Commands are built with ffmpeg-python (`ffmpeg.input(...).filter(...).output(...)` graphs, `ffmpeg.probe`)
by the modules that need them; this module runs them. The binary is whatever the caller passes as `cmd`
(the web side reads it from its settings; nothing here reads settings or the environment). Every
failure is a MediaError that reads "<file name>: <reason a person can act on>", with the server's folders
left out, whichever command failed.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ffmpeg

from .errors import MediaError

# ffmpeg's own words for common failures, and what a person should do about them. Anything ffmpeg
# cannot open at all reads "not a readable video (...)", with the likely cause in brackets.
_KNOWN_FAILURES = (
    # ffmpeg guesses MP4 from the name alone when the content looks like nothing it knows.
    ("misdetection possible", "not a readable video (its contents are not a video format ffmpeg knows)"),
    (
        "moov atom not found",
        "not a readable video (the file is truncated or incomplete: its MP4 index is missing; upload it again)",
    ),
    ("Invalid data found when processing input", "not a readable video (ffmpeg cannot make sense of its contents)"),
    ("matches no streams", "no video stream found"),
    ("does not contain any stream", "no video stream found"),
    ("Permission denied", "the file cannot be read (permission denied)"),
)

# Log lines kept for the failure reason: the first ones (where ffmpeg says it cannot open the input)
# and the last ones (where it says why it stopped). A damaged file can log a line per frame for hours.
_HEAD_LINES = 200
_TAIL_LINES = 200


class FfmpegError(MediaError):
    """ffmpeg or ffprobe ran and exited with an error; `reason` is the plain-words part of the message,
    for callers that word the message their own way."""

    def __init__(self, source: Path, reason: str) -> None:
        super().__init__(f"{source.name}: {reason}")
        self.reason = reason


def require_file(path: Path) -> None:
    """Refuse a missing or empty file before starting ffmpeg, with a plain reason."""
    if not path.is_file():
        raise MediaError(f"{path.name}: file not found")
    if path.stat().st_size == 0:
        raise MediaError(f"{path.name}: the file is empty (0 bytes)")


def failure_reason(path: Path, stderr: str, fallback: str) -> str:
    """The reason ffmpeg/ffprobe gave, in words a person can act on, without the server's folders."""
    for needle, reason in _KNOWN_FAILURES:
        if needle in stderr:
            return reason
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    if not lines:
        return fallback
    # ffmpeg prefixes messages with the path it was given; only the file name may be shown.
    return f"{fallback} ({lines[-1].replace(str(path), path.name)})"


def _not_installed(cmd: str, exc: OSError) -> MediaError:
    if isinstance(exc, FileNotFoundError):
        return MediaError(f"{cmd} is not installed; install ffmpeg")
    return MediaError(f"{cmd} cannot be run ({exc.strerror or exc}); check that it is an ffmpeg program")


def probe(path: Path, *, cmd: str = "ffprobe", **options: Any) -> dict[str, Any]:
    """ffprobe's JSON for `path` (format and streams, plus whatever `options` ask for, e.g.
    `select_streams="V:0", show_entries="packet=pts_time,flags"`), via `ffmpeg.probe`.

    No time limit: ffmpeg-python 0.2.0's probe() waits for ffprobe without one and gives no way to stop
    it. ffprobe reads the container here (decoding at most the few frames that settle the stream's
    parameters), so it takes about as long as reading the file."""
    try:
        return dict(ffmpeg.probe(str(path), cmd=cmd, hide_banner=None, v="warning", **options))
    except OSError as exc:
        raise _not_installed(cmd, exc) from exc
    except ffmpeg.Error as exc:
        stderr = (exc.stderr or b"").decode(errors="replace")
        raise FfmpegError(path, failure_reason(path, stderr, "not a readable video")) from exc


def probe_packets(path: Path, stream: str, entries: str, *, cmd: str = "ffprobe") -> tuple[list[dict[str, str]], str]:
    """(packets, log) of one stream: ffprobe's per-packet `entries` and what it logged on the way.

    Built by hand, unlike everything else here: `ffmpeg.probe` drops ffprobe's log when it succeeds, and
    the log is the only sign of an MP4 cut inside a sample (the MOV demuxer says "partial file" and ffprobe
    still exits 0)."""
    args = [cmd, "-hide_banner", "-v", "warning", "-select_streams", stream, "-show_entries", f"packet={entries}"]
    args += ["-of", "compact", str(path)]
    try:
        proc = subprocess.run(args, capture_output=True, text=True, errors="replace", check=False)
    except OSError as exc:
        raise _not_installed(cmd, exc) from exc
    if proc.returncode != 0:
        raise FfmpegError(path, failure_reason(path, proc.stderr, "not a readable video"))
    packets = []
    # Only "packet|..." lines are packets; MPEG-TS adds side-data lines of its own.
    for line in proc.stdout.splitlines():
        if line.startswith("packet|"):
            packets.append(dict(item.split("=", 1) for item in line.split("|")[1:] if "=" in item))
    return packets, proc.stderr


@dataclass
class _Log:
    """ffmpeg's log as kept for the failure reason: the first and the last lines."""

    head: list[str] = field(default_factory=list)
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=_TAIL_LINES))

    def add(self, line: str) -> None:
        if not line.strip():
            return
        if len(self.head) < _HEAD_LINES:
            self.head.append(line.rstrip("\n"))
        else:
            self.tail.append(line.rstrip("\n"))

    def text(self) -> str:
        return "\n".join([*self.head, *self.tail])


def _lines(pipe: IO[bytes]) -> Iterator[str]:
    for raw in iter(pipe.readline, b""):
        yield raw.decode(errors="replace")


def _drain(pipe: IO[bytes], log: _Log) -> None:
    for line in _lines(pipe):
        log.add(line)


def _follow(pipe: IO[bytes], on_line: Callable[[str], bool | None], log: _Log | None) -> None:
    for line in _lines(pipe):
        # A line the caller took (a per-frame report) is not one of ffmpeg's messages.
        if not on_line(line) and log is not None:
            log.add(line)


def run(
    stream: Any,
    *,
    source: Path,
    failed: str,
    cmd: str = "ffmpeg",
    timeout_s: float | None = None,
    on_stderr: Callable[[str], bool | None] | None = None,
    on_stdout: Callable[[str], bool | None] | None = None,
    capture_stdout: bool = False,
) -> bytes:
    """Run an ffmpeg-python output `stream` with the binary `cmd`; returns stdout when `capture_stdout`.

    `on_stderr` / `on_stdout` (at most one) receive that pipe's lines as ffmpeg writes them, in this
    thread, so a progress callback may touch what this thread owns; a stderr line for which it returns
    True is not kept as a log message. A helper thread reads stderr otherwise, so ffmpeg never stalls on
    a full pipe. After `timeout_s` seconds ffmpeg is stopped. Failures are MediaErrors naming `source`:
    ffmpeg missing, stopped at the time limit ("<failed>: ffmpeg was stopped after ..."), or ffmpeg's
    error in plain words (`failed` when it gave none). The child never outlives this call."""
    if on_stderr and (on_stdout or capture_stdout):
        raise ValueError("follow one pipe: stderr, or stdout")
    args = ffmpeg.compile(stream, cmd=cmd)
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if on_stdout or capture_stdout else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
    except OSError as exc:
        raise _not_installed(cmd, exc) from exc
    with _Child(proc, timeout_s) as child:
        out = child.read(on_stderr, on_stdout, capture_stdout)
    if child.returncode != 0 and child.timed_out:
        raise MediaError(
            f"{source.name}: {failed}: ffmpeg was stopped after {timeout_s:g} s without finishing "
            "(the file may be damaged, or too long for the time allowed)"
        )
    if child.returncode != 0:
        reason = failure_reason(source, child.log.text(), failed)
        # ffmpeg names its outputs with their folders too ("/srv/.../proxy.mp4: No such file or directory").
        folders = {str(Path(arg).parent) + os.sep for arg in args[1:] if arg.startswith(os.sep)}
        for folder in sorted(folders, key=len, reverse=True):  # the deepest first: one may hold another
            reason = reason.replace(folder, "")
        raise FfmpegError(source, reason)
    return out


class _Child:
    """A running ffmpeg: its pipes read without stalling it, its time limit, and its end. Leaving the
    `with` block, however it is left (an error in a callback, a task's time limit), ends the process."""

    def __init__(self, proc: subprocess.Popen[bytes], timeout_s: float | None) -> None:
        self.proc = proc
        self.log = _Log()
        self.returncode: int | None = None
        self._timed_out = threading.Event()
        self._timer = threading.Timer(timeout_s, self._stop) if timeout_s is not None else None
        if self._timer:
            self._timer.daemon = True
        self._drain: threading.Thread | None = None

    @property
    def timed_out(self) -> bool:
        return self._timed_out.is_set()

    def _stop(self) -> None:
        if self.proc.poll() is None:
            self._timed_out.set()
            self.proc.kill()

    def __enter__(self) -> _Child:
        if self._timer:
            self._timer.start()
        return self

    def read(
        self,
        on_stderr: Callable[[str], bool | None] | None,
        on_stdout: Callable[[str], bool | None] | None,
        capture_stdout: bool,
    ) -> bytes:
        stdout, stderr = self.proc.stdout, self.proc.stderr
        assert stderr is not None
        if on_stderr:
            _follow(stderr, on_stderr, self.log)
            return b""
        self._drain = threading.Thread(target=_drain, args=(stderr, self.log), daemon=True)
        self._drain.start()
        if on_stdout:
            assert stdout is not None
            _follow(stdout, on_stdout, None)
        elif capture_stdout:
            assert stdout is not None
            return stdout.read()
        return b""

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        try:
            if exc_type is not None:
                self.proc.kill()
            # The timer still runs here: a command whose pipes were not followed is waited on now.
            self.returncode = self.proc.wait()
        finally:
            if self._timer:
                self._timer.cancel()
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            if self._drain:
                self._drain.join()
            for pipe in (self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { frameAt, parseVtt, vttTime } from "../../static/js/lib/vtt.js";

const TRACK = `WEBVTT

2
00:00:02.000 --> 00:00:04.000
filmstrip.jpg#xywh=160,0,160,90

1
00:00:00.000 --> 00:00:02.000
filmstrip.jpg#xywh=0,0,160,90

00:01:00.500 --> 00:01:02.000 align:start
/other/sheet.jpg
`;

describe("vttTime", () => {
  it("reads hours, minutes and seconds", () => {
    assert.equal(vttTime("00:00:02.500"), 2.5);
    assert.equal(vttTime("01:02.5"), 62.5);
    assert.equal(vttTime(" 01:00:00.000 "), 3600);
  });
});

describe("parseVtt", () => {
  const cues = parseVtt(TRACK.replace(/\n/g, "\r\n"), "http://h/media/scenes/4/filmstrip.vtt");
  it("reads every cue, sorted by start, ignoring cue settings", () => {
    assert.deepEqual(cues.map((c) => [c.start, c.end]), [[0, 2], [2, 4], [60.5, 62]]);
  });
  it("resolves the sprite against the track's URL and reads the cell", () => {
    assert.equal(cues[0].src, "http://h/media/scenes/4/filmstrip.jpg");
    assert.deepEqual(cues[1].xywh, [160, 0, 160, 90]);
    assert.equal(cues[2].src, "http://h/other/sheet.jpg");
    assert.equal(cues[2].xywh, null);
  });
});

describe("frameAt", () => {
  const frames = [{ start: 0 }, { start: 2 }, { start: 4 }];
  it("takes the last frame starting at or before t", () => {
    assert.equal(frameAt(frames, 1.99).start, 0);
    assert.equal(frameAt(frames, 2).start, 2);
    assert.equal(frameAt(frames, 99).start, 4);
  });
});

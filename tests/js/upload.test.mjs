// The upload page's pure parts: telemetry column picks, the server's field errors, progress text.
import { test } from "node:test";
import assert from "node:assert/strict";

import { fieldErrors, pickedColumns, pickProblems, progressText } from "../../static/js/upload/columns.js";

const FIELDS = [
  { name: "time_s", label: "video time (s)", required: true },
  { name: "lat", label: "latitude", required: true },
  { name: "lon", label: "longitude", required: true },
  { name: "height_m", label: "height above take-off (m)", required: false },
];

test("picks keep every field the admin set, and '' for a field the file lacks", () => {
  const picks = { time_s: "clip_time_s", lat: "lat", lon: "lon", height_m: "", other: "x" };
  assert.deepEqual(pickedColumns(FIELDS, picks), { time_s: "clip_time_s", lat: "lat", lon: "lon", height_m: "" });
});

test("a required field without a column and one column for two fields are named at once", () => {
  const problems = pickProblems(FIELDS, { time_s: "", lat: "alt", lon: "lon", height_m: "alt" });
  assert.deepEqual(problems, {
    time_s: "pick the column with the video time (s)",
    height_m: "“alt” is already the latitude",
  });
  assert.deepEqual(pickProblems(FIELDS, { time_s: "t", lat: "lat", lon: "lon", height_m: "" }), {});
});

test("Django's get_json_data and DRF's bodies both become one line per field", () => {
  const django = { errors: { telemetry_columns: [{ message: "log.csv: no column 'rel_alt'", code: "" }], __all__: [{ message: "a" }, { message: "b" }] } };
  assert.deepEqual(fieldErrors(django), { telemetry_columns: "log.csv: no column 'rel_alt'", "": "a b" });
  assert.deepEqual(fieldErrors({ telemetry: ["not a CSV"], non_field_errors: ["x"] }), { telemetry: "not a CSV", "": "x" });
  assert.deepEqual(fieldErrors(null), {});
});

test("progress reads in megabytes with a whole percentage, never past 100", () => {
  assert.equal(progressText(12_500_000, 250_000_000), "12.5 of 250.0 MB (5 %)");
  assert.equal(progressText(250_000_000, 250_000_000), "250.0 of 250.0 MB (100 %)");
  assert.equal(progressText(0, 0), "0.0 MB sent");
});

"""annotator.intake.manifest: JSON and CSV manifests into SceneSpecs, a bad row never hides the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.intake.manifest import ManifestError, read_manifest


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_json_manifest_with_relative_paths(tmp_path: Path) -> None:
    # given a JSON manifest in data/ naming files next to it and below it
    manifest = _write(
        tmp_path / "data" / "scenes.json",
        json.dumps(
            {
                "scenes": [
                    {
                        "name": "Saro",
                        "video": "clips/saro.mp4",
                        "satellite": ["maps/a.tif", "maps/b.tif"],
                        "corners": {"tl": [1, 2], "tr": [1, 3], "br": [0, 3], "bl": [0, 2]},
                        "description": "roundabout",
                        "annotators": ["ann", "ann2"],
                    },
                    {"name": "Kraklanda", "video": "k.mp4", "satellite_from_keyframe_s": 0},
                ]
            }
        ),
    )

    # when read
    rows = read_manifest(manifest)

    # then each row is a spec with paths resolved against the manifest's folder
    assert [(r.number, r.error) for r in rows] == [(1, None), (2, None)]
    saro, krak = rows[0].spec, rows[1].spec
    assert saro is not None and krak is not None
    assert saro.name == "Saro" and saro.video == (tmp_path / "data" / "clips" / "saro.mp4").resolve()
    assert saro.satellite == [(tmp_path / "data" / "maps" / n).resolve() for n in ("a.tif", "b.tif")]
    assert saro.corners == {"tl": [1, 2], "tr": [1, 3], "br": [0, 3], "bl": [0, 2]}
    assert (saro.description, saro.annotators, saro.satellite_from_keyframe_s) == ("roundabout", ["ann", "ann2"], None)
    assert (krak.satellite, krak.satellite_from_keyframe_s, krak.annotators) == ([], 0.0, [])


def test_json_manifest_may_be_a_bare_list(tmp_path: Path) -> None:
    manifest = _write(tmp_path / "m.json", json.dumps([{"name": "A", "video": "a.mp4", "satellite": "x.png"}]))
    [row] = read_manifest(manifest)
    assert row.spec is not None and row.spec.satellite == [(tmp_path / "x.png").resolve()]


def test_csv_manifest_with_lists_and_corners(tmp_path: Path) -> None:
    # given a CSV manifest with ';'-separated lists and 'lat,lon' corners
    manifest = _write(
        tmp_path / "m.csv",
        (
            "name,video,satellite,satellite_from_keyframe_s,corners,description,annotators\n"
            'Saro,saro.mp4,a.png; b.png,,"57.1,12.1;57.1,12.2;57.0,12.2;57.0,12.1",four arms,ann;ann2\n'
            "Krak,k.mp4,,1.5,,,\n"
        ),
    )

    # when read
    rows = read_manifest(manifest)

    # then
    saro, krak = rows[0].spec, rows[1].spec
    assert saro is not None and krak is not None
    assert saro.satellite == [(tmp_path / "a.png").resolve(), (tmp_path / "b.png").resolve()]
    assert saro.corners == {"tl": [57.1, 12.1], "tr": [57.1, 12.2], "br": [57.0, 12.2], "bl": [57.0, 12.1]}
    assert (saro.description, saro.annotators) == ("four arms", ["ann", "ann2"])
    assert (krak.satellite, krak.satellite_from_keyframe_s, krak.corners, krak.annotators) == ([], 1.5, None, [])


def test_bad_rows_get_errors_and_good_rows_still_parse(tmp_path: Path) -> None:
    # given a CSV with a row missing its video, one with three corners, and a good one
    manifest = _write(
        tmp_path / "m.csv", ('name,video,corners\nNo video,,\nThree corners,v.mp4,"1,2;3,4;5,6"\nGood,g.mp4,\n')
    )

    # when read
    rows = read_manifest(manifest)

    # then each bad row says what is wrong and the good row parses
    assert [(r.number, r.spec is None, r.error) for r in rows] == [
        (1, True, "video: missing"),
        (2, True, "corners: give 4 'lat,lon' pairs separated by ';' in the order tl;tr;br;bl"),
        (3, False, None),
    ]


def test_json_rows_that_are_not_objects(tmp_path: Path) -> None:
    manifest = _write(tmp_path / "m.json", json.dumps([["Saro", "saro.mp4"], {"video": "v.mp4"}]))
    assert [(r.number, r.error) for r in read_manifest(manifest)] == [(1, "expected an object"), (2, "name: missing")]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("m.json", "{not json", r"m\.json: cannot read"),
        ("m.json", json.dumps({"items": []}), r"m\.json: cannot read"),
        ("m.json", json.dumps({"scenes": "all"}), r"m\.json: expected a list of scenes"),
        ("m.yaml", "scenes: []", r"m\.yaml: a manifest is \.json or \.csv"),
    ],
)
def test_unreadable_manifests(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(ManifestError, match=message):
        read_manifest(_write(tmp_path / name, text))


def test_missing_manifest(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="manifest not found"):
        read_manifest(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("video", "/etc/passwd", "not an absolute one"),
        ("video", "../secret.mp4", "lies outside the manifest's root"),
        ("satellite", ["maps/../../secret.tif"], "lies outside the manifest's root"),
        ("world_file", "../a.tfw", "lies outside the manifest's root"),
        ("telemetry", "../../etc/shadow", "lies outside the manifest's root"),
        ("gcps", "/root/gcps.csv", "not an absolute one"),
    ],
)
def test_paths_outside_the_manifests_root_are_refused(tmp_path: Path, field: str, value: object, says: str) -> None:
    # given a manifest whose row reaches out of its folder
    row = {"name": "A", "video": "a.mp4", "satellite": ["x.png"], field: value}
    manifest = _write(tmp_path / "data" / "m.json", json.dumps([row, {"name": "B", "video": "b.mp4"}]))

    # when read / then that row is refused, naming the field; the other row still parses
    bad, good = read_manifest(manifest)
    assert bad.spec is None and bad.error is not None
    assert bad.error.startswith(f"{field}: ") and says in bad.error
    assert good.spec is not None


def test_a_symbolic_link_out_of_the_root_is_refused_and_a_wider_root_can_be_given(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "clip.mp4").write_bytes(b"")
    _write(tmp_path / "data" / "placeholder", "")
    (tmp_path / "data" / "clip.mp4").symlink_to(tmp_path / "shared" / "clip.mp4")
    manifest = _write(tmp_path / "data" / "m.json", json.dumps([{"name": "A", "video": "clip.mp4"}]))

    [linked] = read_manifest(manifest)
    assert linked.spec is None and "outside the manifest's root" in (linked.error or "")

    [wider] = read_manifest(manifest, root=tmp_path)
    assert wider.spec is not None and wider.spec.video == (tmp_path / "shared" / "clip.mp4").resolve()

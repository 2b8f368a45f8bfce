// @ts-check
/* Shapes the workspace passes around, as the API sends them. Types only: nothing to run. */

/**
 * A pixel of the satellite image in API convention: x right, y DOWN, origin top-left.
 * @typedef {number[]} XY
 */

/**
 * A mark's geometry as the API stores it (pixels, y down). "Ellipse" is ours: centre, the two
 * radii and a rotation in degrees; the others are GeoJSON shapes.
 * @typedef {object} Geometry
 * @property {"Point"|"LineString"|"Polygon"|"Ellipse"} type
 * @property {any} [coordinates] XY, XY[] or XY[][] for Point, LineString, Polygon
 * @property {XY} [center]
 * @property {XY} [radii]
 * @property {number} [rotation]
 */

/** @typedef {"point"|"polygon"|"ellipse"|"polyline"} MarkKind */

/**
 * Task facts an annotator records on a mark (the catalog: annotator/marking/facts.py).
 * @typedef {object} Facts
 * @property {boolean} [visible]
 * @property {number} [first_seen_s]
 * @property {number} [count]
 * @property {string} [count_class]
 * @property {string} [event]
 * @property {"enters"|"passes_by"|"stays_away"} [interaction]
 * @property {string} [future_action]
 * @property {boolean} [reaches]
 * @property {number} [at_s]
 * @property {number} [t1_s]
 * @property {number} [t2_s]
 * @property {{other: number, relation: "hides"|"hidden_by"|"mutual"|"none"}[]} [occlusion] one relation per other mark
 * @property {string} [note]
 */

/**
 * A time anchor: an instant (time_end null) or an interval; a trajectory may time each vertex.
 * @typedef {object} TimeAnchor
 * @property {number} time_start
 * @property {number|null} [time_end]
 * @property {number[]} [vertex_times]
 */

/**
 * A mark as the API returns it. Marks not yet created on the server have a negative id and a
 * null version.
 * @typedef {object} Mark
 * @property {number} id
 * @property {number|null} version
 * @property {number|null} satellite_image
 * @property {MarkKind} kind
 * @property {Geometry} geometry
 * @property {string} label
 * @property {number} time_start
 * @property {number|null} time_end
 * @property {number[]} [vertex_times]
 * @property {Facts} [facts]
 * @property {boolean} [locked] an item in review or approved uses it: it cannot change now
 * @property {boolean} [copy_on_edit] locked, but the author's drafts or rejected items use it too: an
 *   edit is written to a copy they move to (the server answers with the copy, another id)
 * @property {number|null} [copied_from] the mark this one was copied from on write
 * @property {string|null} [client_key] drawn by the page for the create, sent with every retry of it
 * @property {boolean} [draft] a tracked trajectory its author has not confirmed yet
 */

/**
 * A compiled QA item (annotator/admin view; reviewers get the blind subset).
 * @typedef {object} Item
 * @property {number} id
 * @property {string} uid
 * @property {string} task
 * @property {string} [question]
 * @property {string[]} [options]
 * @property {string} [answer]
 * @property {string} [state]
 * @property {number[]} [mark_ids]
 * @property {number|null} [satellite_image] the image its marks are drawn on
 * @property {number} [revision]
 * @property {boolean} [stale]
 * @property {number} [approvals]
 * @property {number} [rejections]
 * @property {boolean} [stale] a mark it was built from changed since
 * @property {string} [stale_reason]
 * @property {number|null} [replaced_by] the item compiled again in its place
 * @property {number} [active_seconds]
 * @property {ModelView|null} [model_view]
 */

/**
 * What a model is given for an item (annotator/compiling/serializers.py); urls once rendered.
 * @typedef {object} ModelView
 * @property {"pending"|"running"|"succeeded"|"failed"} state
 * @property {string} error
 * @property {string|null} image_url
 * @property {string|null} video_url
 * @property {number[]|null} segment_s
 * @property {{option: string, image_url: string}[]} options
 */

/**
 * Field name -> message(s), as the page's own checks and DRF's 400 bodies give them.
 * @typedef {Record<string, any>} FieldErrors
 */

export {};

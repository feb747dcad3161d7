"""Convert a TopoJSON map of US states (the `us-atlas` npm package) to a board map file.

    python -m hustings.tools.mapdata states-albers-10m.json content/1960/map.json

The input is `states-albers-10m.json` of us-atlas (ISC licence, from the US Census Bureau's
cartographic boundary files, already projected to a 975×610 frame). The output is one SVG
path per state keyed by its postal code, a point for its label, and the credit to show.
Arcs are delta-encoded and quantized (`transform`); points closer than TOLERANCE pixels to
the last kept one are dropped and coordinates rounded to whole pixels to keep the file small.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TOLERANCE = 1.2
CREDIT = ("State shapes: us-atlas 3 (ISC licence), from the US Census Bureau's "
          "cartographic boundary files")
# FIPS state codes (a public standard) to postal codes.
POSTAL = {
    "01": "AL", "02": "AK", "04": "AZ", "05": "AR", "06": "CA", "08": "CO", "09": "CT",
    "10": "DE", "11": "DC", "12": "FL", "13": "GA", "15": "HI", "16": "ID", "17": "IL",
    "18": "IN", "19": "IA", "20": "KS", "21": "KY", "22": "LA", "23": "ME", "24": "MD",
    "25": "MA", "26": "MI", "27": "MN", "28": "MS", "29": "MO", "30": "MT", "31": "NE",
    "32": "NV", "33": "NH", "34": "NJ", "35": "NM", "36": "NY", "37": "NC", "38": "ND",
    "39": "OH", "40": "OK", "41": "OR", "42": "PA", "44": "RI", "45": "SC", "46": "SD",
    "47": "TN", "48": "TX", "49": "UT", "50": "VT", "51": "VA", "53": "WA", "54": "WV",
    "55": "WI", "56": "WY",
}

Point = tuple[float, float]


def decode_arcs(topology: dict) -> list[list[Point]]:
    """Absolute coordinates of every arc (positions are deltas of quantized integers)."""
    scale = topology.get("transform", {}).get("scale", [1, 1])
    shift = topology.get("transform", {}).get("translate", [0, 0])
    out = []
    for arc in topology["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            points.append((x * scale[0] + shift[0], y * scale[1] + shift[1]))
        out.append(points)
    return out


def ring_points(ring: list[int], arcs: list[list[Point]]) -> list[Point]:
    """A ring's points: its arcs joined (index ~i is arc i reversed), shared ends once."""
    points: list[Point] = []
    for index in ring:
        arc = arcs[index] if index >= 0 else arcs[~index][::-1]
        points.extend(arc[1:] if points else arc)
    return points


def simplified(points: list[Point]) -> list[Point]:
    kept = [points[0]]
    for p in points[1:-1]:
        if abs(p[0] - kept[-1][0]) + abs(p[1] - kept[-1][1]) >= TOLERANCE:
            kept.append(p)
    kept.append(points[-1])
    return kept


def area(points: list[Point]) -> float:
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(points, points[1:] + points[:1],
                                                              strict=True))) / 2


def centre(points: list[Point]) -> Point:
    """The centroid of a ring (where the state's label goes)."""
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        cross = x0 * y1 - x1 * y0
        a += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(a) < 1e-9:
        return points[0]
    return cx / (3 * a), cy / (3 * a)


def shape(geometry: dict, arcs: list[list[Point]]) -> dict:
    polygons = geometry["arcs"] if geometry["type"] == "MultiPolygon" else [geometry["arcs"]]
    parts, largest, biggest = [], None, -1.0
    for polygon in polygons:
        for n, ring in enumerate(polygon):
            points = ring_points(ring, arcs)
            if n == 0 and area(points) > biggest:
                biggest, largest = area(points), points
            points = simplified(points)
            if len(points) < 3:
                continue
            parts.append("M" + "L".join(f"{round(x)},{round(y)}" for x, y in points) + "Z")
    x, y = centre(largest)
    return {"path": "".join(parts), "label": [round(x), round(y)]}


def convert(topology: dict) -> dict:
    arcs = decode_arcs(topology)
    shapes = {}
    for geometry in topology["objects"]["states"]["geometries"]:
        postal = POSTAL.get(str(geometry.get("id")))
        if postal:
            shapes[postal] = shape(geometry, arcs)
    return {"width": 975, "height": 610, "credit": CREDIT,
            "shapes": dict(sorted(shapes.items()))}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    data = convert(json.loads(Path(argv[0]).read_text("utf-8")))
    Path(argv[1]).write_text(json.dumps(data, separators=(",", ":")) + "\n", "utf-8")
    print(f"{len(data['shapes'])} shapes, {Path(argv[1]).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

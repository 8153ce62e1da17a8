"""Where a node added from a menu goes: free space near a point (the view centre).

Candidates are searched outward ring by ring on a grid around the point; the first position
whose node rectangle, grown by a margin, overlaps no existing node wins. Plain numbers only
(rectangles as (left, top, width, height)), so it is easy to test.
"""

from __future__ import annotations

MARGIN = 24.0
MAX_RINGS = 40


def _overlaps(a: tuple, b: tuple) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def _ring(radius: int):
    """Grid offsets on the square ring at `radius`, nearest to the centre first."""
    if radius == 0:
        return [(0, 0)]
    cells = [(i, j) for i in range(-radius, radius + 1) for j in range(-radius, radius + 1)
             if max(abs(i), abs(j)) == radius]
    return sorted(cells, key=lambda c: (c[0] ** 2 + c[1] ** 2, c[1], c[0]))


def free_spot(centre: tuple, size: tuple, rects: list, margin: float = MARGIN) -> tuple:
    """A centre near `centre` where a node of `size` (width, height), plus `margin` all
    round, overlaps none of `rects`; `centre` itself when nothing is free within reach."""
    width, height = size
    step_x, step_y = (width + margin) / 2, (height + margin) / 2
    for radius in range(MAX_RINGS):
        for i, j in _ring(radius):
            x, y = centre[0] + i * step_x, centre[1] + j * step_y
            box = (x - width / 2 - margin, y - height / 2 - margin,
                   width + 2 * margin, height + 2 * margin)
            if not any(_overlaps(box, r) for r in rects):
                return (x, y)
    return tuple(centre)

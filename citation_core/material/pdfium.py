"""What every pdfium caller shares: one lock around every pdfium call of the process (pdfium is not
thread-safe, and the app serves several sessions (threads) at once that render pages, read text, find
evidence boxes and read page images), and how a page's boxes stand on the page as it is shown."""

from __future__ import annotations

import threading

PDFIUM_LOCK = threading.RLock()


def shown_box(box: tuple[float, float, float, float], rotation: int) -> tuple[float, float, float, float]:
    """A box (left, bottom, right, top) of the page's space (PDF units, y up) as the page is shown, turned by
    ``rotation`` degrees clockwise (its ``/Rotate``): the text runs to the right, the lines go down."""
    left, bottom, right, top = box
    rotation %= 360
    if rotation == 90:
        return bottom, -right, top, -left
    if rotation == 180:
        return -right, -top, -left, -bottom
    if rotation == 270:
        return -top, left, -bottom, right
    return left, bottom, right, top

"""The web board: an ASGI app (Starlette) serving a page that draws the pack's `view:`."""

"""Helpers for the browser tests (test_web_browser, test_web_phone): the app served on a
free port, headless Chromium, a game opened in a page, and waiting for the page to settle."""

from __future__ import annotations

import os
import socket
import threading
import time
from contextlib import contextmanager

CHROMIUM = os.environ.get("HUSTINGS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextmanager
def chromium():
    """Debian's headless Chromium, driven by Playwright (which cannot download its own
    browser here), closed at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(app):
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


CREATE = """async (body) => {
  const r = await fetch('/api/games', { method: 'POST', body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' } });
  return await r.json();
}"""


def new_game(page, base: str, seats: dict[str, str], **more) -> dict:
    """A game made from `page`'s browser (as the page's New game does: the creator's seat
    is this browser's cookie), then that seat's board opened."""
    page.goto(base + "/api/setup")
    game = page.evaluate(CREATE, {"seats": seats, **more})
    page.goto(f"{base}/?game={game['id']}")
    return game


def invitation(base: str, game: dict, seat: str) -> str:
    return f"{base}/?game={game['id']}&invite={game['invitations'][seat]}"


SETTLED = """() => !document.body.classList.contains('busy') && (
  document.querySelector('#decision button.option') !== null
  || !document.getElementById('result').hidden)"""


def settle(page) -> None:
    page.wait_for_function(SETTLED, timeout=30_000)


def actions(page) -> int:
    return int(page.evaluate("document.body.dataset.actions"))

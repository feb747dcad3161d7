"""The web board's new-game dialog seats the players as `hustings play` does: the first
player human, every other seat the `random` agent (the command line's default)."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the test extra")
uvicorn = pytest.importorskip("uvicorn", reason="needs the web extra")

from hustings.tools.web.app import create_app  # noqa: E402

CHROMIUM = os.environ.get("HUSTINGS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")


def test_the_dialog_seats_the_others_with_the_command_lines_default_agent():
    from hustings.tools import play

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("dialog#setup[open]")
            chosen = {seat: page.input_value(f"[data-seat={seat}]")
                      for seat in ("kennedy", "nixon")}
            offered = page.eval_on_selector_all("[data-seat=nixon] option",
                                                "options => options.map(o => o.value)")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
    assert chosen == {"kennedy": play.HUMAN, "nixon": "random"}
    assert "ismcts" in offered  # still offered, just not chosen for you

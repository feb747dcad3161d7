"""`hustings serve`: the web board — play in a browser, against an agent or another person.

Binds 127.0.0.1 unless --host says otherwise: anyone who can reach the port can start
games (a warning says so on any other address). Mods are the ones given here; a page can
never name a folder to load. Games are kept in --store (SQLite) and survive a restart;
requests are checked against the address's names and --allow-origin (tools/web/guard.py).
"""

from __future__ import annotations

import argparse
import ipaddress
import sys

from .. import cli
from ..failures import UsageError
from ..web.guard import Guard, parse_origin
from ..web.store import KEEP_DAYS, KEEP_FINISHED_DAYS, SQLiteStore, StoreError

DEFAULT_STORE = "hustings-games.sqlite3"

NAME = "serve"
HELP = "serve the web board: play in a browser (needs the `web` extra)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    cli.add_pack_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=port_number, default=8960,
                        help="port to listen on (default: 8960; 0 picks a free one)")
    parser.add_argument("--store", default=DEFAULT_STORE, metavar="PATH",
                        help="SQLite file the games are kept in, so they survive a restart "
                        f"(default: {DEFAULT_STORE} in the current folder; :memory: keeps "
                        "them in memory only, lost when the server stops)")
    parser.add_argument("--keep-days", type=days, default=KEEP_DAYS, metavar="DAYS",
                        help="delete an unfinished game untouched for DAYS days "
                        f"(default: {KEEP_DAYS})")
    parser.add_argument("--keep-finished-days", type=days, default=KEEP_FINISHED_DAYS,
                        metavar="DAYS", help="keep a finished game DAYS days after its last "
                        f"move, for its save and replay (default: {KEEP_FINISHED_DAYS})")
    parser.add_argument("--allow-origin", action="append", default=[], type=origin,
                        metavar="ORIGIN", help="also accept requests for, and from pages of, "
                        "this origin (scheme://host[:port], e.g. http://192.168.1.20:8960: "
                        "the address players type); repeatable")


def days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not 0 < value <= 36_500:
        raise argparse.ArgumentTypeError(f"days are more than 0 and at most 36500, not {text}")
    return value


def origin(text: str) -> str:
    try:
        parse_origin(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..web.app import create_app
    except ImportError:
        raise UsageError("the web board needs starlette and uvicorn: "
                         "pip install 'hustings[web]'") from None
    pack = cli.pack_folder(args.pack)
    if cli.load_or_report(pack, cli.parse_options(args.option), args.mods) is None:
        return 1
    try:
        store = SQLiteStore(args.store)
    except StoreError as e:
        raise UsageError(str(e)) from None
    guard = Guard.for_address(args.host, args.port, args.allow_origin)
    app = create_app(pack, args.mods, cli.parse_options(args.option), store=store,
                     guard=guard, keep_days=args.keep_days,
                     keep_finished_days=args.keep_finished_days)
    if not loopback(args.host):
        print(f"hustings serve: WARNING: listening on {args.host}, not this machine only: "
              "anyone who can reach this port can start games and play the ones they are "
              "invited to, over plain HTTP (put it behind HTTPS on a network you do not "
              "trust); players must use a name given with --allow-origin", file=sys.stderr,
              flush=True)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    async def announce() -> None:
        for s in server.servers:
            for sock in s.sockets:
                host, port = sock.getsockname()[:2]
                guard.allow(args.host, port)  # the real port, when --port 0 picked it
                shown = f"[{host}]" if ":" in host else host
                print(f"hustings serve: open http://{shown}:{port}/  (Ctrl-C stops)",
                      flush=True)

    original = server.startup

    async def startup(sockets=None) -> None:
        await original(sockets=sockets)
        await announce()

    server.startup = startup
    try:
        server.run()
    finally:
        store.close()
    return 0


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False

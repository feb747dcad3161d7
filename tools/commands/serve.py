"""`hustings serve`: the web board — play in a browser, against an agent or another person.

Binds 127.0.0.1 unless --host says otherwise: anyone who can reach the port can start
games. Mods are the ones given here; a page can never name a folder to load.
"""

from __future__ import annotations

import argparse

from .. import cli
from ..failures import UsageError

NAME = "serve"
HELP = "serve the web board: play in a browser (needs the `web` extra)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    cli.add_pack_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=port_number, default=8960,
                        help="port to listen on (default: 8960; 0 picks a free one)")


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
    app = create_app(pack, args.mods, cli.parse_options(args.option))
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    async def announce() -> None:
        for s in server.servers:
            for sock in s.sockets:
                host, port = sock.getsockname()[:2]
                shown = f"[{host}]" if ":" in host else host
                print(f"hustings serve: open http://{shown}:{port}/  (Ctrl-C stops)",
                      flush=True)

    original = server.startup

    async def startup(sockets=None) -> None:
        await original(sockets=sockets)
        await announce()

    server.startup = startup
    server.run()
    return 0

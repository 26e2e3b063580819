"""``python -m benchmarks.external setup``: make the external peers' environment ``.venv-peers/``
and print the versions of the peers' packages installed there.
"""

from __future__ import annotations

import argparse
import json

from benchmarks import external


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.external", description=__doc__)
    p.add_argument("command", choices=["setup"])
    p.parse_args(argv)
    print(json.dumps(external.setup()))


if __name__ == "__main__":
    main()

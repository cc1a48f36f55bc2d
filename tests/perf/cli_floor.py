"""The floor of `roost state --json`: what any program printing the same state must do.

    python cli_floor.py READ_URL

GETs the five state files from ``READ_URL/state/``, ``json.loads`` each and writes them to stdout
as one document with one ``json.dumps``, compact and ASCII-escaped as roost prints it. Plain
Python: the standard library only, so its start-up is the interpreter's.
"""

import json
import sys
import urllib.request

FILES = ("agents.json", "trending.json", "channels.json", "stats.json", "seeds.json")


def main(read_url: str) -> None:
    documents = {}
    for name in FILES:
        with urllib.request.urlopen(f"{read_url.rstrip('/')}/state/{name}") as response:
            documents[name.removesuffix(".json")] = json.loads(response.read())
    text = json.dumps(documents, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])

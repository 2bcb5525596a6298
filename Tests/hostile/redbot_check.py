"""Runs REDbot ("lint for HTTP", PyPI `redbot`) on one URL and prints its notes as JSON.

    python redbot_check.py URL

It does what `redbot URL` does (the same `HttpResource`, active checks included: conditional
requests, content negotiation, ranges), but prints each note with its level (`good`, `info`,
`warning`, `bad`), which the CLI's text output shows only as terminal colours. Runs in a process
of its own because REDbot's event loop (thor) is global.
"""
from __future__ import annotations

import json
import re
import sys
from configparser import ConfigParser

import thor
from redbot.resource import HttpResource


def plain(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def note_json(note) -> dict:
    try:
        detail = plain(str(note.detail))
    except Exception:  # noqa: BLE001 - the summary is enough
        detail = ""
    return {
        "level": note.level.value if note.level is not None else None,
        "category": note.category.value if note.category is not None else None,
        "summary": str(note.summary),
        "detail": detail,
        "subnotes": [note_json(sub) for sub in note.subnotes],
    }


def check(url: str) -> dict:
    parser = ConfigParser()
    parser.read_dict({"redbot": {"enable_local_access": "True"}})
    config = parser["redbot"]
    resource = HttpResource(config, descend=False)
    resource.set_request(url)

    @thor.events.on(resource)
    def check_done() -> None:
        thor.stop()

    resource.check()
    thor.schedule(60, thor.stop)  # the failure bound: an unanswered check ends the loop
    thor.run()
    response = resource.response
    error = resource.fetch_error
    return {
        "url": url,
        "done": resource.check_done,
        "status": response.status_code if resource.has_response else None,
        "headers": [list(h) for h in response.headers.text] if resource.has_response else [],
        "fetch_error": (f"{error.desc} ({error.detail})" if error.detail else error.desc) if error else None,
        "notes": [note_json(note) for note in response.notes],
    }


if __name__ == "__main__":
    print(json.dumps(check(sys.argv[1]), indent=1))

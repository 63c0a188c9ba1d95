"""A stand-in for the parts of the Hugging Face Hub's HTTP API that ``judge-report --push-to-hub`` uses, on
127.0.0.1, reached through ``HF_ENDPOINT`` as ``huggingface_hub`` reaches the real Hub.

It answers who the token belongs to (``/api/whoami-v2``), creates repositories, checks a card's YAML
(``/api/validate-yaml``), takes commits (every file uploaded inline, as the Hub has small files sent), and serves the
files of a repository (``resolve``), which ``huggingface_hub`` reads a model card through. What was written is kept per repository, for the tests to read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

TOKEN = "hf_standin_token"


@dataclass
class Hub:
    """The stand-in's state: the account, and each repository's files (``"<type>s/<owner>/<name>"``)."""

    user: str
    orgs: tuple[str, ...]
    repos: dict[str, dict[str, bytes]] = field(default_factory=dict)
    commits: list[tuple[str, str]] = field(default_factory=list)
    """``(repository, commit message)`` in order."""


_COMMIT = re.compile(r"^/api/(models|datasets)/([^/]+/[^/]+)/(preupload|commit)/([^/?]+)")
_RESOLVE = re.compile(r"^/(?:(datasets)/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")


class _Handler(BaseHTTPRequestHandler):
    hub: Hub

    def _send(self, status: int, payload: object = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if payload is None else payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _authorised(self) -> bool:
        if self.headers.get("Authorization") == f"Bearer {TOKEN}":
            return True
        self._send(401, {"error": "Invalid credentials in Authorization header"})
        return False

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path.startswith("/api/whoami-v2"):
            if self._authorised():
                orgs = [{"name": org, "type": "org"} for org in self.hub.orgs]
                self._send(200, {"type": "user", "name": self.hub.user, "orgs": orgs})
            return
        self._resolve()

    def do_HEAD(self) -> None:  # noqa: N802
        self._resolve()

    def _resolve(self) -> None:
        match = _RESOLVE.match(self.path.split("?")[0])
        repo = f"{match[1] or 'models'}/{match[2]}" if match else ""
        content = self.hub.repos.get(repo, {}).get(match[4]) if match else None
        if content is None:
            self._send(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
            return
        etag = hashlib.sha1(content).hexdigest()
        headers = {"ETag": f'"{etag}"', "X-Repo-Commit": "0" * 40, "Content-Type": "text/plain"}
        self._send(200, content, headers)

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/api/validate-yaml"):  # the Hub checks a card's YAML for anyone
            content = json.loads(body)["content"]
            try:
                yaml.safe_load(content.split("---")[1] if content.startswith("---") else "")
            except yaml.YAMLError as error:
                self._send(400, {"errors": [{"message": str(error)}]})
                return
            self._send(200, {"errors": [], "warnings": []})
            return
        if not self._authorised():
            return
        if self.path.startswith("/api/repos/create"):
            request = json.loads(body)
            owner = request.get("organization") or self.hub.user
            repo = f"{request.get('type') or 'model'}s/{owner}/{request['name']}"
            if repo in self.hub.repos:
                self._send(409, {"error": "You already created this repo"})
                return
            self.hub.repos[repo] = {}
            self._send(200, {"url": self._url(repo)})
            return
        match = _COMMIT.match(self.path)
        if match is None:
            self._send(404, {"error": f"not served by the stand-in: {self.path}"})
            return
        repo = f"{match[1]}/{match[2]}"
        if repo not in self.hub.repos:
            self._send(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
            return
        if match[3] == "preupload":
            files = json.loads(body)["files"]
            modes = [{"path": file["path"], "uploadMode": "regular", "shouldIgnore": False} for file in files]
            self._send(200, {"files": modes, "commitOid": "0" * 40})
            return
        summary = ""
        for line in body.decode().splitlines():
            entry = json.loads(line)
            if entry["key"] == "header":
                summary = entry["value"]["summary"]
            elif entry["key"] == "file":
                value = entry["value"]
                self.hub.repos[repo][value["path"]] = base64.b64decode(value["content"])
        self.hub.commits.append((repo, summary))
        oid = hashlib.sha1(f"{repo}{len(self.hub.commits)}".encode()).hexdigest()
        self._send(200, {"commitUrl": f"{self._url(repo)}/commit/{oid}", "commitOid": oid, "pullRequestUrl": None})

    def _url(self, repo: str) -> str:
        """A repository's address on the stand-in, as the Hub gives it (models without their type)."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/{repo.removeprefix('models/')}"

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve(
    user: str = "alice", orgs: tuple[str, ...] = (), repos: dict[str, dict[str, bytes]] | None = None
) -> Iterator[tuple[str, Hub]]:
    """Run the stand-in Hub with the repositories ``repos`` already there; yields its endpoint (for ``HF_ENDPOINT``)
    and its state."""
    hub = Hub(user, orgs, dict(repos or {}))
    handler = type("FakeHubHandler", (_Handler,), {"hub": hub})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hub
    finally:
        server.shutdown()
        server.server_close()

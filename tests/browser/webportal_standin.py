"""A stand-in for an OpenPAI cluster on loopback, for the webportal plugin's browser tests.

Two servers, as a real deployment has them: the prereq site on its own host (with the CORS header an
administrator adds, site/webportal.md), and the portal with its rest-server under ``/rest-server``
on one origin.  The portal's plugin page does what the webportal's does (microsoft/pai,
src/webportal/src/app/plugin/plugin.component.js): it sets ``window.PAI_PLUGINS`` and ``window.ENV``,
loads the entry's ``uri`` as a classic script, then creates ``<pai-plugin>`` with the rest-server's
address and, when the ``user`` and ``token`` cookies are set, the user and the token.

The rest-server part answers as the real one does for what the plugin uses: the bearer token
(401 "Your token is invalid."), ``POST /api/v2/jobs`` checked with prereq's own protocol checks
(``prereq.openpai.protocol``: 400 with the problems), the virtual clusters of the user (403), a name
in use (409); ``GET /api/v2/jobs/USER~NAME`` (404 ``NoJobError`` for a name not in use) and
``.../config`` (the text as posted with its ``secrets:`` masked, answered parsed, as JSON, under
``text/yaml``: the real one keeps no comments); ``GET /api/v2/users/NAME`` and ``PUT .../extension``
(merged; refused for application tokens).  Every job posted is kept with its headers, for the tests to
read.  The job's page (``/job-detail.html``) has the portal's Clone link: to the plugin page of the
entry ``extras.submitFrom`` names (``op=resubmit``), else to ``/submit.html``.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import yaml

from prereq.openpai import protocol

USERS = "/rest-server/api/v2/users/"
JOBS = "/rest-server/api/v2/jobs/"

# A style sheet a portal might have: everything it could do to a page's content.
HOSTILE_CSS = """
html { font-size: 10px; }
* { color: rgb(200, 0, 0) !important; font-family: serif !important; letter-spacing: 3px; line-height: 3; }
button, .md-button { background: rgb(0, 200, 0); border: 0; text-transform: uppercase; }
ul, ol, li { list-style: square; margin: 40px; padding: 40px; }
textarea { font-size: 30px; background: rgb(0, 0, 200); }
.prereq-composer__items, .prereq-badge { display: inline; }
h1, h2 { font-size: 50px; }
pai-plugin { text-align: right; }
"""

PLUGIN_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>OpenPAI</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
{policy}{style}
<script src="/env.js"></script>
<script src="/plugin-page.js" defer></script>
</head><body>
<h1 id="host-title" class="md-button">Portal heading</h1>
<button id="host-button" class="md-button md-button--primary prereq-badge">Host button</button>
<div id="content-wrapper">portal loading…</div>
</body></html>
"""

# What the webportal's plugin page does, in plain JavaScript (it uses jQuery and js-cookie).
PLUGIN_PAGE_JS = """
(function () {
  var cookies = {};
  document.cookie.split("; ").forEach(function (pair) {
    var at = pair.indexOf("=");
    if (at > 0) cookies[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1));
  });
  var index = Number(new URLSearchParams(window.location.search).get("index"));
  var plugin = window.PAI_PLUGINS[index];
  var script = document.createElement("script");
  script.addEventListener("load", function () {
    document.head.removeChild(script);
    var element = document.createElement("pai-plugin");
    element.setAttribute("pai-rest-server-uri", window.ENV.restServerUri);
    element.setAttribute("pai-version", window.PAI_VERSION);
    if (cookies.token) {
      element.setAttribute("pai-user", cookies.user);
      element.setAttribute("pai-rest-server-token", cookies.token);
    }
    var wrapper = document.getElementById("content-wrapper");
    wrapper.textContent = "";
    wrapper.appendChild(element);
  });
  script.src = plugin.uri;
  document.head.appendChild(script);
})();
"""

SUBMIT_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Submit</title><script src="/submit-page.js" defer></script></head>
<body><pre id="handed"></pre></body></html>
"""
# The built-in submission page takes the job out of localStorage.marketItem (and removes it).
SUBMIT_PAGE_JS = """
var item = window.localStorage.getItem("marketItem");
window.localStorage.removeItem("marketItem");
document.getElementById("handed").textContent = item === null ? "(nothing)" : item;
"""


@dataclass
class Cluster:
    """What the rest-server knows: users, tokens, jobs; and what the portal's env.js says."""

    rest_server: str = ""
    plugins: list[dict[str, Any]] = field(default_factory=list)
    hostile: bool = True
    policy: str = ""  # the plugin page's Content-Security-Policy, if any
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, tuple[str, bool]] = field(default_factory=dict)  # token -> (user, application)
    jobs: dict[str, str] = field(default_factory=dict)  # user~name -> the YAML text posted, secrets masked
    posts: list[dict[str, Any]] = field(default_factory=list)  # every POST /api/v2/jobs: headers, body, status
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_user(
        self,
        name: str,
        token: str,
        *,
        clusters: tuple[str, ...] = ("default",),
        groups: tuple[str, ...] = ("default",),
        admin: bool = False,
    ) -> None:
        self.users[name] = {
            "username": name,
            "grouplist": list(groups),
            "virtualCluster": list(clusters),
            "admin": admin,
            "storageConfig": [],
            "extension": {"sshKeys": []},
        }
        self.tokens[token] = (name, False)


def mask_secrets(text: str) -> str:
    """What the rest-server keeps of a job's text: its ``secrets:`` as "******" (protocolSecret.mask)."""
    return re.sub(r"(^secrets:)[\s\S]*?(^\w)", '\\1 "******"\n\\2', text + "\nZ", count=1, flags=re.M)[:-2]


def clone_link(plugins: list[dict[str, Any]], job: dict[str, Any], user: str, name: str) -> str:
    """Where the portal's Clone leads (webportal job-detail/components/clone-button.jsx)."""
    plugin = (job.get("extras") or {}).get("submitFrom")
    found = [i for i, entry in enumerate(plugins) if plugin is not None and entry.get("id") == plugin]
    if found:
        query = {"op": "resubmit", "type": "job", "user": user, "jobname": name, "index": found[0]}
        return "/plugin.html?" + urlencode(query)
    return "/submit.html?" + urlencode({"op": "resubmit", "type": "job", "user": user, "jobName": name})


def _problem_message(problems: list[protocol.JobProblem]) -> str:
    """The rest-server's words: its schema errors as Ajv's JSON list, else its own check's message."""
    schema = [p for p in problems if p.source == "schema"]
    if schema:
        return json.dumps([{"dataPath": "." + ".".join(map(str, p.path)), "message": p.message} for p in schema])
    return problems[0].message


class _Portal(http.server.BaseHTTPRequestHandler):
    cluster: Cluster

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: str | bytes, kind: str = "application/json") -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, code: str, message: str) -> None:
        self._send(status, json.dumps({"code": code, "message": message}))

    def _token(self) -> tuple[str, bool] | None:
        """The user of the bearer token (and whether it is an application's); None: answered 401."""
        header = self.headers.get("Authorization", "")
        if not header:
            self._error(401, "UnauthorizedUserError", "Guest is not allowed to do this operation.")
            return None
        found = self.cluster.tokens.get(header.removeprefix("Bearer "))
        if found is None:
            self._error(401, "UnauthorizedUserError", "Your token is invalid.")
        return found

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        pages = {
            "/plugin.html": (
                PLUGIN_PAGE.format(
                    style=f"<style>{HOSTILE_CSS}</style>" if self.cluster.hostile else "",
                    policy=f'<meta http-equiv="Content-Security-Policy" content="{html.escape(self.cluster.policy)}">'
                    if self.cluster.policy
                    else "",
                ),
                "text/html",
            ),
            "/plugin-page.js": (PLUGIN_PAGE_JS, "text/javascript"),
            "/submit.html": (SUBMIT_PAGE, "text/html"),
            "/submit-page.js": (SUBMIT_PAGE_JS, "text/javascript"),
            "/job-detail.html": (self._job_page(parse_qs(url.query)), "text/html"),
            "/env.js": (self._env(), "text/javascript"),
        }
        if url.path in pages:
            text, kind = pages[url.path]
            return self._send(200, text, kind)
        if url.path.startswith(USERS):
            return self._user(unquote(url.path[len(USERS) :]))
        if url.path.startswith(JOBS):
            return self._job(unquote(url.path[len(JOBS) :]))
        return self._error(404, "NotFoundError", f"{url.path} not found")

    def _user(self, name: str) -> None:
        found = self._token()
        if found is None:
            return None
        if name != found[0] or name not in self.cluster.users:
            return self._error(403, "ForbiddenUserError", "Non-admin is not allow to do this operation.")
        with self.cluster.lock:
            return self._send(200, json.dumps(self.cluster.users[name]))

    def _job(self, path: str) -> None:
        """GET /api/v2/jobs/USER~NAME (the job) or .../config (its text, parsed: JSON, as the real one)."""
        if self._token() is None:
            return None
        framework, _, what = path.partition("/")
        with self.cluster.lock:
            text = self.cluster.jobs.get(framework)
        if text is None:
            return self._error(404, "NoJobError", f"Job {framework} is not found.")
        if what == "config":
            config = json.dumps(yaml.safe_load(text), ensure_ascii=False, separators=(",", ":"), default=str)
            return self._send(200, config, "text/yaml; charset=utf-8")
        user, _, name = framework.partition("~")
        return self._send(200, json.dumps({"name": name, "jobStatus": {"username": user, "state": "WAITING"}}))

    def _job_page(self, query: dict[str, list[str]]) -> str:
        user, name = query.get("username", [""])[0], query.get("jobName", [""])[0]
        with self.cluster.lock:
            text = self.cluster.jobs.get(f"{user}~{name}")
        if text is None:
            return "<!doctype html><title>Job</title><p>no such job</p>"
        href = html.escape(clone_link(self.cluster.plugins, yaml.safe_load(text), user, name))
        return f'<!doctype html><title>Job</title><p>job page</p><a id="clone" href="{href}">Clone</a>'

    def _env(self) -> str:
        env = {"restServerUri": self.cluster.rest_server}
        return (
            f"window.ENV = {json.dumps(env)};\nwindow.PAI_VERSION = 'v1.8.0';\n"
            f"window.PAI_PLUGINS = {json.dumps(self.cluster.plugins)};\n"
        )

    def do_PUT(self) -> None:
        path = urlsplit(self.path).path
        prefix, suffix = USERS, "/extension"
        if not (path.startswith(prefix) and path.endswith(suffix)):
            return self._error(404, "NotFoundError", f"{path} not found")
        found = self._token()
        if found is None:
            return None
        name = path[len(prefix) : -len(suffix)]
        if found[1]:
            return self._error(403, "ForbiddenUserError", "Applications are not allowed to do this operation.")
        if name != found[0]:
            return self._error(403, "ForbiddenUserError", "Non-admin is not allow to do this operation.")
        extension = json.loads(self._body()).get("extension")
        if not isinstance(extension, dict):
            return self._error(400, "InvalidParametersError", '"extension" must be an object')
        with self.cluster.lock:
            self.cluster.users[name]["extension"].update(extension)
        return self._send(201, json.dumps({"message": "Update user extension data successfully."}))

    def do_POST(self) -> None:
        if urlsplit(self.path).path != "/rest-server/api/v2/jobs":
            return self._error(404, "NotFoundError", "not found")
        found = self._token()
        body = self._body().decode("utf-8")
        post = {
            "type": self.headers.get("Content-Type", ""),
            "auth": self.headers.get("Authorization", ""),
            "body": body,
        }
        with self.cluster.lock:
            self.cluster.posts.append(post)
        if found is None:
            return None
        status, code, message = self._submit(found[0], body)
        post["status"] = status
        self._send(
            status, json.dumps({"code": code, "message": message} if code else {"status": status, "message": message})
        )

    def _submit(self, user: str, body: str) -> tuple[int, str, str]:
        if not self.headers.get("Content-Type", "").startswith("text/yaml"):
            return 400, "InvalidProtocolError", "the job must be sent as text/yaml"
        job = yaml.safe_load(body)
        problems = protocol.refusals(protocol.validate_job(job))
        if problems:
            return 400, "InvalidProtocolError", _problem_message(problems)
        cluster = ((job.get("defaults") or {}).get("virtualCluster")) or "default"
        if cluster not in self.cluster.users[user]["virtualCluster"]:
            return 403, "ForbiddenUserError", f"User {user} is not allowed to do operation in {cluster}"
        name = f"{user}~{job['name']}"
        with self.cluster.lock:
            if name in self.cluster.jobs:
                return 409, "ConflictJobError", f"Job {name} already exists."
            self.cluster.jobs[name] = mask_secrets(body)
        return 202, "", f"Update job {job['name']} for user {user} successfully."


class _CorsSite(http.server.SimpleHTTPRequestHandler):
    """The prereq site, readable from the portal's origin (module scripts and fetches need it)."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()


def _start(server: http.server.ThreadingHTTPServer) -> str:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def serve_site(built: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    """The built site under /out/ with CORS: (its address ending in "/", the server)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_CorsSite, directory=str(built.parent))
    )
    return f"{_start(server)}/{built.name}/", server


def serve_portal(cluster: Cluster) -> tuple[str, http.server.ThreadingHTTPServer]:
    """The portal and its rest-server on one origin: (that origin, the server)."""
    handler = type("Portal", (_Portal,), {"cluster": cluster})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    origin = _start(server)
    cluster.rest_server = origin + "/rest-server"
    return origin, server

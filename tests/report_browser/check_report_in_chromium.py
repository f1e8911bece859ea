#!/usr/bin/python3
"""Loads one of OpenGE's HTML pages in headless Chromium and fails on anything a reader would notice:
  - an uncaught exception, console.error / console.assert, or an error in the browser log,
  - a resource that failed to load, or any request besides the page itself (the pages are
    self-contained: no script, no network),
  - a page that did not render what it should. --kind profiling (the profiling report.html): the
    header (table#header) naming the model, the options and the median step time, the
    top-operators table (table#top-ops) with at least one data row and the SVG timeline
    (svg#timeline) with at least one visible bar inside it and a colour legend (g#legend) that
    names every bar colour. --kind compare (`openge compare`'s
    page): the per-op table (table#per-op) with data rows, the error plot (svg#error-plot) with
    two visible points per row inside it, its threshold line, and, when the verdict says an op
    exceeds the threshold, the marker of that op (#first-exceeding) inside the plot and its row.
A full-page PNG screenshot is written to --screenshot (also when the page fails, to show why).

Chromium is driven over the DevTools protocol on --remote-debugging-pipe (it reads commands on
fd 3 and writes replies on fd 4, each a JSON text ended by a NUL byte), with the standard library
only. Name resolution is mapped to "not found", so nothing can leave the machine.

Exit status: 0 page is fine, 1 page has problems, 2 the check itself could not run.
  --expect-failure turns 0 and 1 around (for a deliberately broken page); 2 stays 2.
  --self-test writes broken pages to a temporary folder and expects each to be caught for its
  own reason, and an unbroken one to pass.

Usage: check_report_in_chromium.py PAGE.html [--kind profiling|compare] [--screenshot OUT.png] [--expect-failure]
       check_report_in_chromium.py --self-test
"""
import argparse
import base64
import fcntl
import json
import os
import re
import pathlib
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

PAGE_OK, PAGE_BAD, CHECK_BROKEN = 0, 1, 2
VIEWPORT_WIDTH, VIEWPORT_HEIGHT = 1280, 800
MIN_BAR_ROOM_PX = 60  # narrowest bar-chart cell in which bars of different sizes can be told apart
SETTLE_S = 0.5  # after the load event: late console output and failures still arrive


class CheckBroken(Exception):
    """The check could not be carried out (no browser, browser died, timeout): not a page verdict."""


def find_chromium(explicit):
    if explicit:
        return explicit
    # The real binary, not Debian's /usr/bin/chromium wrapper script (which adds flags of its own).
    for candidate in ("/usr/lib/chromium/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise CheckBroken("no Chromium found (install the Debian package `chromium`: scripts/setup.sh)")


class DevToolsPipe:
    """One headless Chromium and its DevTools connection over fds 3 (commands) and 4 (replies)."""

    def __init__(self, chromium, deadline):
        self.deadline = deadline
        self.next_id = 0
        self.events = []           # (sessionId, method, params) not yet looked at
        self.buffer = b""
        self.profile = tempfile.mkdtemp(prefix="openge_chromium_profile_")
        self.log = tempfile.TemporaryFile()
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # Move the child's ends above any fd the dup2s below could overwrite.
        child_in = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)

        def wire_fds():  # in the child, before exec
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        args = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
                "--force-color-profile=srgb", "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--window-size={VIEWPORT_WIDTH},{VIEWPORT_HEIGHT}", "about:blank"]
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                         stderr=subprocess.STDOUT, pass_fds=(3, 4),
                                         preexec_fn=wire_fds, start_new_session=True)
        except OSError as e:
            self._cleanup_files()
            raise CheckBroken(f"cannot start {chromium}: {e}") from e
        finally:
            os.close(child_in)
            os.close(child_out)
        self.to_browser = to_browser_w
        self.from_browser = from_browser_r

    # -- protocol ----------------------------------------------------------------------------
    def send(self, method, params=None, session=None):
        """Sends a command and returns its result; a protocol error raises CheckBroken."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            try:
                data = data[os.write(self.to_browser, data):]
            except BrokenPipeError as e:
                raise CheckBroken(f"Chromium closed its DevTools pipe{self.log_tail()}") from e
        wanted = self.next_id
        while True:
            reply = self._read_message()
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise CheckBroken(f"DevTools {method} failed: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append((reply.get("sessionId"), reply["method"], reply.get("params", {})))

    def wait_event(self, method, session):
        """Reads until `method` arrives for `session`; earlier events stay in self.events."""
        for i, (s, m, _) in enumerate(self.events):
            if s == session and m == method:
                return self.events.pop(i)[2]
        while True:
            reply = self._read_message()
            if "method" in reply:
                if reply.get("sessionId") == session and reply["method"] == method:
                    return reply.get("params", {})
                self.events.append((reply.get("sessionId"), reply["method"], reply.get("params", {})))

    def drain_for(self, seconds):
        """Collects the events that arrive within `seconds`."""
        until = min(time.monotonic() + seconds, self.deadline)
        while True:
            message = self._read_message(until=until)
            if message is None:
                return
            if "method" in message:
                self.events.append((message.get("sessionId"), message["method"],
                                    message.get("params", {})))

    def _read_message(self, until=None):
        """The next NUL-terminated message; None when `until` passes; CheckBroken at the deadline."""
        while b"\0" not in self.buffer:
            limit = self.deadline if until is None else until
            left = limit - time.monotonic()
            if left <= 0:
                if until is not None:
                    return None
                raise CheckBroken(f"timed out waiting for Chromium{self.log_tail()}")
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise CheckBroken(f"Chromium exited (status {self.proc.poll()}){self.log_tail()}")
            self.buffer += chunk
        text, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(text)

    # -- lifetime ----------------------------------------------------------------------------
    def log_tail(self):
        self.log.seek(0)
        lines = self.log.read().decode("utf-8", "replace").strip().splitlines()[-8:]
        return "; its output ends:\n  " + "\n  ".join(lines) if lines else ""

    def close(self):
        """Always ends the browser and every process it started (its own process group)."""
        try:
            if self.proc.poll() is None:
                try:
                    message = json.dumps({"id": self.next_id + 1, "method": "Browser.close"})
                    os.write(self.to_browser, message.encode() + b"\0")
                    self.proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # renderer/GPU/crashpad children too
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        finally:
            for fd in (self.to_browser, self.from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._cleanup_files()

    def _cleanup_files(self):
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


# What every page must be (document mode, title, no script, nothing fetched); evaluated in the
# page after the load event, together with the probe of its kind.
COMMON_PROBE = r"""(() => ({
  compatMode: document.compatMode,
  title: document.title,
  scripts: document.scripts.length,
  resources: performance.getEntriesByType('resource').map(e => e.name),
}))()"""

# Elements drawn outside their SVG's box (1 px of slack for anti-aliased edges).
OUTSIDE_JS = r"""const outsideOf = (box, els) => els.filter(el => { const b = el.getBoundingClientRect();
    return b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1; });"""

PROFILING_PROBE = r"""(() => {
  """ + OUTSIDE_JS + r"""
  const table = document.querySelector('table#top-ops');
  const dataRows = table ? [...table.querySelectorAll('tr')].filter(r => r.querySelector('td')) : [];
  const svg = document.querySelector('svg#timeline');
  const box = svg ? svg.getBoundingClientRect() : null;
  // The bars, and the colour legend of op types (g#legend: a swatch and a name per colour).
  const legend = svg ? svg.querySelector('g#legend') : null;
  const rects = svg ? [...svg.querySelectorAll('rect')].filter(r => !r.closest('#legend')) : [];
  const swatches = legend ? [...legend.querySelectorAll('rect')] : [];
  const visible = rects.filter(r => { const b = r.getBoundingClientRect();
                                      return b.width > 0 && b.height > 0; });
  const shownSwatches = swatches.filter(r => { const b = r.getBoundingClientRect(); return b.width > 0 && b.height > 0; });
  const outside = box ? outsideOf(box, visible.concat(shownSwatches)).length : 0;
  const fill = r => getComputedStyle(r).fill;
  const legendColours = [...new Set(shownSwatches.map(fill))];
  const unexplained = [...new Set(visible.map(fill))].filter(c => !legendColours.includes(c));
  // Bar charts: a bar styled width:P% must come out P% of a cell wide enough to compare bars.
  const bars = [...document.querySelectorAll('.bar')].map(b => {
    const cell = b.parentElement, cs = getComputedStyle(cell);
    const room = cell.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return {percent: parseFloat(b.style.width), width: b.getBoundingClientRect().width, room: room};
  }).filter(b => !isNaN(b.percent));
  const header = document.querySelector('table#header');
  const medianStep = document.querySelector('#median-step');
  return {
    bars: bars,
    headerText: header ? header.innerText : null,
    medianStepText: medianStep ? medianStep.innerText : null,
    hasTopOps: !!table, topOpsRows: dataRows.length,
    hasTimeline: !!svg, timelineWidth: box ? box.width : 0, timelineHeight: box ? box.height : 0,
    rects: rects.length, visibleRects: visible.length, rectsOutside: outside,
    hasLegend: !!legend, legendEntries: shownSwatches.length,
    legendText: legend ? legend.textContent : '', unexplainedColours: unexplained,
  };
})()"""

COMPARE_PROBE = r"""(() => {
  """ + OUTSIDE_JS + r"""
  const table = document.querySelector('table#per-op');
  const dataRows = table ? [...table.querySelectorAll('tr')].filter(r => r.querySelector('td')) : [];
  const svg = document.querySelector('svg#error-plot');
  const box = svg ? svg.getBoundingClientRect() : null;
  const points = svg ? [...svg.querySelectorAll('circle')] : [];
  const visible = points.filter(p => { const b = p.getBoundingClientRect(); return b.width > 0 && b.height > 0; });
  const threshold = svg ? svg.querySelector('#threshold') : null;
  const marker = svg ? svg.querySelector('#first-exceeding') : null;
  const verdict = document.querySelector('#verdict');
  const shown = el => { if (!el) return false; const b = el.getBoundingClientRect(); return b.width > 0 || b.height > 0; };
  return {
    hasTable: !!table, dataRows: dataRows.length,
    hasPlot: !!svg, plotWidth: box ? box.width : 0, plotHeight: box ? box.height : 0,
    points: points.length, visiblePoints: visible.length, pointsOutside: box ? outsideOf(box, visible).length : 0,
    threshold: shown(threshold), thresholdOutside: box && threshold ? outsideOf(box, [threshold]).length : 0,
    verdict: verdict ? verdict.className : '',
    marker: shown(marker), markerOutside: box && marker ? outsideOf(box, [marker]).length : 0,
    firstRow: !!(table && table.querySelector('tr.first')),
  };
})()"""


def common_problems(probe):
    problems = []
    if probe["compatMode"] != "CSS1Compat":
        problems.append("page renders in quirks mode (no <!DOCTYPE html>?)")
    if not probe["title"].strip():
        problems.append("page has no <title>")
    if probe["scripts"]:
        problems.append(f"page has {probe['scripts']} <script> element(s); the page must have none")
    for url in probe["resources"]:
        problems.append(f"page loaded a resource: {url}")
    return problems


def compare_problems(probe):
    problems = []
    if not probe["hasTable"]:
        problems.append("no per-op table (table#per-op)")
    elif probe["dataRows"] < 1:
        problems.append("per-op table (table#per-op) has no data row")
    if not probe["hasPlot"]:
        problems.append("no error plot (svg#error-plot)")
        return problems
    if probe["plotWidth"] <= 0 or probe["plotHeight"] <= 0:
        problems.append("error plot (svg#error-plot) has no size on the page")
    if probe["visiblePoints"] != 2 * probe["dataRows"]:
        problems.append(f"error plot shows {probe['visiblePoints']} visible points ({probe['points']} <circle>s) "
                        f"for {probe['dataRows']} table rows; expected two per row (cosine, relative error)")
    if probe["pointsOutside"]:
        problems.append(f"{probe['pointsOutside']} error-plot point(s) lie outside the SVG box")
    if not probe["threshold"] or probe["thresholdOutside"]:
        problems.append("the threshold line (#threshold) is missing or outside the error plot")
    if probe["verdict"] not in ("good", "bad"):
        problems.append("no verdict (#verdict with class good or bad)")
    if probe["verdict"] == "bad":
        if not probe["marker"] or probe["markerOutside"]:
            problems.append("the verdict names a first op over the threshold, but its marker (#first-exceeding) "
                            "is missing, invisible or outside the error plot")
        if not probe["firstRow"]:
            problems.append("the verdict names a first op over the threshold, but no table row is marked (tr.first)")
    return problems


def profiling_problems(probe):
    problems = []
    # The header says what was profiled and the steady step time it settled at.
    if probe["headerText"] is None:
        problems.append("no header table (table#header) naming the model, the options and the median step time")
    else:
        for label in ("model", "options", "median step time"):
            if label not in probe["headerText"]:
                problems.append(f"the header (table#header) has no '{label}' row")
        if not re.search(r"\d+\.\d+ ms", probe["medianStepText"] or ""):
            problems.append("the header shows no median step time in ms (#median-step)")
    if not probe["hasTopOps"]:
        problems.append("no top-operators table (table#top-ops)")
    elif probe["topOpsRows"] < 1:
        problems.append("top-operators table (table#top-ops) has no data row")
    if not probe["hasTimeline"]:
        problems.append("no SVG timeline (svg#timeline)")
    else:
        if probe["timelineWidth"] <= 0 or probe["timelineHeight"] <= 0:
            problems.append("SVG timeline (svg#timeline) has no size on the page")
        if probe["rects"] < 1:
            problems.append("SVG timeline (svg#timeline) has no <rect>")
        elif probe["visibleRects"] < 1:
            problems.append(f"none of the {probe['rects']} timeline <rect>s is visible (zero size)")
        if probe["rectsOutside"]:
            problems.append(f"{probe['rectsOutside']} timeline <rect>(s) lie outside the SVG box")
        # Bars coloured by op type, every colour named in the legend.
        if not probe["hasLegend"] or probe["legendEntries"] < 1:
            problems.append("the timeline has no colour legend (g#legend with a visible swatch per op type)")
        elif probe["unexplainedColours"]:
            problems.append(f"timeline bar colour(s) {', '.join(probe['unexplainedColours'])} have no legend entry")
    bars = probe["bars"]
    if bars:
        room = min(b["room"] for b in bars)
        if room < MIN_BAR_ROOM_PX:
            problems.append(f"bar-chart cells are only {room:.0f} px wide, so every bar (.bar, width:P%) "
                            f"is a sliver and bars cannot be compared (need >= {MIN_BAR_ROOM_PX} px)")
        off = [b for b in bars if abs(b["width"] - max(1.0, b["percent"] / 100 * b["room"]))
               > max(2.0, 0.05 * b["room"])]
        if off:
            b = off[0]
            problems.append(f"{len(off)} bar(s) not drawn to scale, e.g. width:{b['percent']}% of "
                            f"{b['room']:.0f} px rendered {b['width']:.0f} px wide")
    return problems


# Page kind -> (its probe, what it must show).
PAGE_KINDS = {"profiling": (PROFILING_PROBE, profiling_problems), "compare": (COMPARE_PROBE, compare_problems)}


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise CheckBroken("the screenshot Chromium returned is not a PNG")
    return struct.unpack(">II", data[16:24])


def evaluate(browser, session, expression):
    reply = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
    if "exceptionDetails" in reply:
        raise CheckBroken(f"render probe failed: {reply['exceptionDetails']}")
    return reply["result"]["value"]


def check_page(html_path, chromium=None, timeout_s=60.0, kind="profiling"):
    """(problems, png bytes or None). Raises CheckBroken when the check itself cannot run."""
    page_url = pathlib.Path(html_path).resolve().as_uri()
    browser = DevToolsPipe(find_chromium(chromium), time.monotonic() + timeout_s)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT,
                      "deviceScaleFactor": 1, "mobile": False}, session=session)
        problems = []
        navigation = browser.send("Page.navigate", {"url": page_url}, session=session)
        if navigation.get("errorText"):
            problems.append(f"navigation to {page_url} failed: {navigation['errorText']}")
        else:
            browser.wait_event("Page.loadEventFired", session)
        browser.drain_for(SETTLE_S)
        problems += event_problems(browser.events, session, page_url)

        kind_probe, kind_problems = PAGE_KINDS[kind]
        problems += common_problems(evaluate(browser, session, COMMON_PROBE))
        problems += kind_problems(evaluate(browser, session, kind_probe))

        # Full page: grow the viewport to the content, then capture exactly that rectangle.
        size = browser.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
        width = max(VIEWPORT_WIDTH, int(size["width"] + 0.999))
        height = max(1, int(size["height"] + 0.999))
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                     session=session)
        shot = browser.send("Page.captureScreenshot",
                            {"format": "png", "captureBeyondViewport": True,
                             "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}},
                            session=session)
        png = base64.b64decode(shot["data"])
        if png_size(png) != (width, height):
            problems.append(f"screenshot is {png_size(png)}, expected the full page {(width, height)}")
        # Whatever happened while taking the screenshot counts too.
        browser.drain_for(0.1)
        problems += event_problems(browser.events, session, page_url)
        return problems, png
    finally:
        browser.close()


def event_problems(events, session, page_url):
    """Turns (and consumes) the collected events of `session` into problem lines."""
    problems, requests = [], {}
    keep = []
    for s, method, params in events:
        if s != session:
            keep.append((s, method, params))
            continue
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "")
            problems.append(f"uncaught exception: {text.splitlines()[0] if text else '?'}")
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            problems.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            problems.append(f"browser log error ({entry['source']}): {entry['text']}"
                            + (f" [{entry['url']}]" if entry.get("url") else ""))
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            requests[params["requestId"]] = url
            if url != page_url:
                problems.append(f"network request besides the page itself: {url}")
        elif method == "Network.loadingFailed":
            url = requests.get(params["requestId"], "?")
            problems.append(f"failed to load {url}: {params['errorText']}")
        elif method in ("Inspector.targetCrashed", "Target.targetCrashed"):
            problems.append("the page crashed")
    events[:] = keep
    return problems


def write_atomically(path, data):
    path = os.path.abspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp_", suffix=".png", dir=os.path.dirname(path))
    try:
        os.fchmod(fd, 0o644)  # an artifact for everyone to read, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def run_check(html_path, screenshot=None, expect_failure=False, chromium=None, timeout_s=60.0,
              quiet=False, kind="profiling"):
    """Checks one page and prints one verdict line; returns the exit status."""
    try:
        problems, png = check_page(html_path, chromium, timeout_s, kind)
    except CheckBroken as e:
        print(f"ERROR: could not check {html_path}: {e}", file=sys.stderr)
        return CHECK_BROKEN
    if screenshot and png:
        write_atomically(screenshot, png)
    shot_note = f" (screenshot: {screenshot})" if screenshot and png else ""
    if problems:
        verdict = PAGE_OK if expect_failure else PAGE_BAD
        label = "OK (failure expected)" if expect_failure else "FAIL"
        print(f"{label}: {html_path} in headless Chromium: {len(problems)} problem(s): "
              + "; ".join(problems) + shot_note, file=sys.stderr if verdict else sys.stdout)
        return verdict
    if expect_failure:
        print(f"FAIL: {html_path} was expected to be rejected, but loaded cleanly in headless Chromium",
              file=sys.stderr)
        return PAGE_BAD
    if not quiet:
        print(f"OK: {html_path} loads in headless Chromium without errors{shot_note}")
    return PAGE_OK


# -- self-test: broken pages the check must catch, each for its own reason ----------------------
GOOD_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>self-test</title></head><body>
<h1>self-test</h1>{extra}
<table id=header><tr><th>model</th><td>demo.onnx</td></tr><tr><th>options</th><td>aicpu=on</td></tr>
<tr><th>median step time</th><td id=median-step>0.032 ms</td></tr></table>
<table id=top-ops><tr><th>#</th><th>op name</th></tr>{rows}</table>
<svg id=timeline width="400" height="60">{rects}{legend}</svg></body></html>"""
ROW = "<tr><td>1</td><td>conv1</td></tr>"
BAR_CHART = ('<style>.bar{background:#4a7fd6;height:8px;min-width:1px}</style><table>'
             '<tr><td style="width:200px"><div class=bar style="width:100.0%"></div></td></tr>'
             '<tr><td style="width:200px"><div class=bar style="width:25.0%"></div></td></tr></table>')
RECT = '<rect x="10" y="10" width="100" height="18" fill="#4a7fd6"></rect>'
LEGEND = '<g id=legend><rect x="10" y="40" width="12" height="12" fill="#4a7fd6"/><text x="26" y="50">Conv</text></g>'

# A comparison page as `openge compare` draws it: a row, its two points, the threshold line and
# the marker of the first op over it.
COMPARE_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>compare self-test</title></head><body>
<p id=verdict class=bad>first op over the threshold: #1</p>
<svg id=error-plot width="400" height="200"><line id=threshold x1="0" y1="100" x2="400" y2="100" stroke="red"/>
{marker}<circle cx="50" cy="20" r="3"/><circle cx="50" cy="{y}" r="3"/></svg>
<table id=per-op><tr><th>#</th></tr><tr id=r0 class="over first"><td>1</td></tr></table></body></html>"""
MARKER = '<g id=first-exceeding><line x1="50" y1="0" x2="50" y2="200" stroke="red"/></g>'

SELF_TEST_CASES = [  # (name, page, a text the problem list must contain; None: must pass)
    ("clean compare page", COMPARE_PAGE.format(marker=MARKER, y=150), None),
    ("compare: first op not marked in the plot", COMPARE_PAGE.format(marker="", y=150),
     "its marker (#first-exceeding)"),
    ("compare: point off the plot", COMPARE_PAGE.format(marker=MARKER, y=260), "outside the SVG box"),
    ("clean", GOOD_PAGE.format(legend=LEGEND, extra=BAR_CHART, rows=ROW, rects=RECT), None),
    ("uncaught exception", GOOD_PAGE.format(legend=LEGEND,
        extra='<script>throw new Error("boom")</script>', rows=ROW, rects=RECT), "uncaught exception"),
    ("console.error", GOOD_PAGE.format(legend=LEGEND,
        extra='<script>console.error("bad")</script>', rows=ROW, rects=RECT), "console.error: bad"),
    ("console.assert", GOOD_PAGE.format(legend=LEGEND,
        extra='<script>console.assert(false, "nope")</script>', rows=ROW, rects=RECT),
     "console.assert"),
    ("late error", GOOD_PAGE.format(legend=LEGEND,
        extra='<script>setTimeout(() => { throw new Error("late") }, 50)</script>',
        rows=ROW, rects=RECT), "uncaught exception"),
    ("remote image", GOOD_PAGE.format(legend=LEGEND,
        extra='<img src="http://example.invalid/x.png">', rows=ROW, rects=RECT),
     "network request besides the page itself: http://example.invalid/x.png"),
    ("missing local file", GOOD_PAGE.format(legend=LEGEND,
        extra='<link rel=stylesheet href="missing.css">', rows=ROW, rects=RECT), "failed to load"),
    ("empty top-ops", GOOD_PAGE.format(legend=LEGEND, extra="", rows="", rects=RECT), "has no data row"),
    ("no timeline bars", GOOD_PAGE.format(legend=LEGEND, extra="", rows=ROW, rects=""), "has no <rect>"),
    ("bar off the timeline", GOOD_PAGE.format(legend=LEGEND,
        extra="", rows=ROW, rects=RECT.replace('x="10"', 'x="350"')), "outside the SVG box"),
    ("squeezed bar chart", GOOD_PAGE.format(legend=LEGEND,
        extra='<table><tr><td><div class=bar style="width:100%;height:8px;min-width:1px;'
              'background:#4a7fd6"></div></td></tr></table>', rows=ROW, rects=RECT),
     "bar-chart cells are only"),
    ("header without the median step time", GOOD_PAGE.replace("0.032 ms", "").format(legend=LEGEND,
        extra="", rows=ROW, rects=RECT), "no median step time"),
    ("timeline without a legend", GOOD_PAGE.format(legend="", extra="", rows=ROW, rects=RECT),
     "no colour legend"),
    ("bar colour not in the legend", GOOD_PAGE.format(
        legend=LEGEND, extra="", rows=ROW, rects=RECT + RECT.replace("#4a7fd6", "#e08a3c").replace('x="10"', 'x="200"')),
     "have no legend entry"),
    ("quirks mode", GOOD_PAGE.replace("<!DOCTYPE html>", "").format(legend=LEGEND, extra="", rows=ROW, rects=RECT),
     "quirks mode"),
]


def self_test(chromium, timeout_s):
    failures = []
    with tempfile.TemporaryDirectory(prefix="openge_report_selftest_") as folder:
        for i, (name, page, expected) in enumerate(SELF_TEST_CASES):
            path = os.path.join(folder, f"case_{i}.html")
            with open(path, "w", encoding="utf-8") as f:
                f.write(page)
            kind = "compare" if name.startswith(("clean compare", "compare:")) else "profiling"
            try:
                problems, _ = check_page(path, chromium, timeout_s, kind)
            except CheckBroken as e:
                print(f"ERROR: self-test case '{name}': {e}", file=sys.stderr)
                return CHECK_BROKEN
            if expected is None and problems:
                failures.append(f"'{name}' should pass but got: {'; '.join(problems)}")
            elif expected is not None and not any(expected in p for p in problems):
                failures.append(f"'{name}' should be rejected with '{expected}' but got: "
                                f"{'; '.join(problems) or 'no problem'}")
            else:
                print(f"  {name}: {'passes' if expected is None else 'rejected: ' + '; '.join(problems)}")
    if failures:
        print("FAIL: the Chromium report check misjudged: " + " | ".join(failures), file=sys.stderr)
        return PAGE_BAD
    print(f"OK: the Chromium report check caught all {len(SELF_TEST_CASES) - 2} broken pages "
          "and passed the two clean ones")
    return PAGE_OK


def scenario_args(description):
    """The arguments of a scenario script that makes a page with the CLI and checks it here
    (run_report_check.py, run_compare_check.py): --openge, --work (emptied first), --screenshot,
    --chromium. Returns the parsed arguments, with args.work made absolute and empty."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--openge", required=True)
    parser.add_argument("--work", required=True, help="scratch folder (emptied first)")
    parser.add_argument("--screenshot", required=True, help="where to keep the PNG")
    parser.add_argument("--chromium")
    args = parser.parse_args()
    args.work = os.path.abspath(args.work)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    return args


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", nargs="?", help="the page to check")
    parser.add_argument("--kind", choices=sorted(PAGE_KINDS), default="profiling",
                        help="what the page must show: the profiling report (default) or `openge compare`'s page")
    parser.add_argument("--screenshot", help="write a full-page PNG here")
    parser.add_argument("--expect-failure", action="store_true",
                        help="succeed only if the page is rejected (for deliberately broken pages)")
    parser.add_argument("--self-test", action="store_true",
                        help="check built-in broken pages (each must fail) and a clean one")
    parser.add_argument("--chromium", help="Chromium binary (default: Debian's /usr/lib/chromium/chromium)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per page (default 60)")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test(args.chromium, args.timeout)
    if not args.report:
        parser.error("give a report.html, or --self-test")
    if not os.path.isfile(args.report):
        print(f"ERROR: {args.report}: no such file", file=sys.stderr)
        return CHECK_BROKEN
    return run_check(args.report, args.screenshot, args.expect_failure, args.chromium, args.timeout,
                     kind=args.kind)


if __name__ == "__main__":
    sys.exit(main())

"""The report in a real browser: headless Chromium over the DevTools protocol (a pipe, no network).

Checks: no console errors or exceptions, no request leaves the file, every figure has a non-zero
rendered size, every model of the input is in the model table, the table sort works; saves a
screenshot. Skips with a message only when no Chromium is installed (CI installs Debian's).
"""

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
import warnings

import pytest

import bayesnoise as bn
from bayesnoise.reporting.html import write_report

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell")


def _browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(f"no headless browser found ({', '.join(BROWSERS)}); CI installs Debian's chromium")


def _high(fd):
    """``fd`` duplicated to a number >= 10 (close-on-exec); the original is closed."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


class DevTools:
    """A minimal DevTools-protocol client over ``--remote-debugging-pipe`` (fds 3 and 4)."""

    def __init__(self, binary, profile):
        # move the pipe ends above fd 9 so that placing them at 3 and 4 cannot clobber them
        to_chrome_r, self._to_chrome, self._from_chrome, from_chrome_w = (
            _high(fd) for fd in (*os.pipe(), *os.pipe())
        )

        def fds():  # in the child: chrome reads commands on fd 3, writes replies on fd 4
            os.dup2(to_chrome_r, 3)  # dup2 makes them inheritable across exec
            os.dup2(from_chrome_w, 4)

        args = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args,
            close_fds=False,
            preexec_fn=fds,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer, self._id, self.events = b"", 0, []

    def _read(self, timeout):
        end = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("no reply from the browser")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, session=None, timeout=600, **params):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, method, timeout=600):
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._read(timeout))

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except (TimeoutError, EOFError, RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


PAGE_FACTS = """JSON.stringify({
  figures: Array.from(document.querySelectorAll('figure img')).map(function(i){
    var r = i.getBoundingClientRect(), f = i.parentElement;
    return {w: r.width, h: r.height, natural: i.naturalWidth, complete: i.complete,
            name: f.dataset.figure, caption: f.querySelector('figcaption').textContent};}),
  models: Array.from(document.querySelectorAll('table.model-table span.model'))
    .map(function(s){ return s.textContent; })
})"""

FIRST_MODEL_AFTER_SORT = """(function(){
  var t = document.querySelector('table.model-table'); t.querySelectorAll('th')[0].click();
  return t.tBodies[0].rows[0].cells[0].textContent; })()"""


def _value(devtools, session, expression):
    result = devtools.send("Runtime.evaluate", session, expression=expression, returnByValue=True)
    return result["result"]["value"]


@pytest.mark.browser
def test_report_in_headless_chromium(bundled_data, tmp_path):
    binary = _browser()
    data = bundled_data / "cruxeval_output_temp0.8.csv.gz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = write_report([data], tmp_path / "report.html", progress=False)
    models = bn.load(data)["model"].values.astype(str).tolist()
    devtools = DevTools(binary, tmp_path / "profile")
    try:
        target = devtools.send("Target.createTarget", url="about:blank")["targetId"]
        session = devtools.send("Target.attachToTarget", targetId=target, flatten=True)
        session = session["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            devtools.send(f"{domain}.enable", session)
        devtools.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=1280,
            height=2400,
            deviceScaleFactor=1,
            mobile=False,
        )
        devtools.send("Page.navigate", session, url=report.resolve().as_uri())
        devtools.wait_for("Page.loadEventFired")
        facts = json.loads(_value(devtools, session, PAGE_FACTS))
        shot = devtools.send("Page.captureScreenshot", session, format="png")["data"]
        first = _value(devtools, session, FIRST_MODEL_AFTER_SORT)
    finally:
        devtools.close()
    import base64

    (tmp_path / "screenshot.png").write_bytes(base64.b64decode(shot))
    if os.environ.get("BAYESNOISE_SCREENSHOT"):  # keep a copy to look at
        shutil.copy(tmp_path / "screenshot.png", os.environ["BAYESNOISE_SCREENSHOT"])
    errors = [e for e in devtools.events if e.get("method") == "Runtime.exceptionThrown"]
    errors += [
        e
        for e in devtools.events
        if e.get("method") == "Runtime.consoleAPICalled"
        and e["params"]["type"] in ("error", "assert")
    ]
    errors += [
        e
        for e in devtools.events
        if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error"
    ]
    assert not errors, errors
    urls = [
        e["params"]["request"]["url"]
        for e in devtools.events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    assert urls, "the page load itself was not seen"
    assert all(u.startswith(("file:", "data:")) for u in urls), urls
    # 6 in "Figures" + the 4 of "Benchmark quality" (pair wins, p-values, difficulty, heat map)
    assert len(facts["figures"]) == 10
    quality = {f["name"]: f["caption"] for f in facts["figures"]}
    assert {"difference-sum", "p-values", "difficulty", "heatmap"} <= set(quality)
    assert "McNemar" in quality["difference-sum"] and "sorted" in quality["heatmap"]
    assert all(
        f["complete"] and f["natural"] > 0 and f["w"] > 0 and f["h"] > 0 for f in facts["figures"]
    ), facts["figures"]
    assert sorted(facts["models"]) == sorted(models)
    assert first == sorted(models)[0]  # first click sorts by name, ascending
    assert len(shot) > 1000


LAYOUT = """JSON.stringify({
  page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
  tables: Array.from(document.querySelectorAll('table')).map(function(t){
    var box = t.parentElement, section = t.closest('section');
    var last = t.querySelector('thead tr, tr').lastElementChild.getBoundingClientRect();
    return {css: t.className, wrapped: box.classList.contains('wrap'),
      overflow: getComputedStyle(box).overflowX, table: t.scrollWidth, box: box.clientWidth,
      right: box.getBoundingClientRect().right, lastRight: last.right,
      limit: section.getBoundingClientRect().right};}),
  figures: Array.from(document.querySelectorAll('figure')).map(function(f){
    var i = f.querySelector('img');
    return {name: f.dataset.figure, natural: i.naturalHeight,
            right: i.getBoundingClientRect().right};}),
  k: Array.from(document.querySelectorAll('table.model-table tbody tr'))
    .map(function(r){ return r.cells[2].textContent; }),
  ranks: document.querySelectorAll('table.rank-table tbody tr').length
})"""

#: Model names shaped like all-the-noises' (its longest has 37 characters).
_STEMS = ("mistralai_mixtral_8x22b_instruct_v0", "qwen2.5-coder-32b-instruct", "gemma_2b_it")


def _leaderboard(m, seed=0):
    """m close models on 120 questions, K = 4 (shared question difficulty)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    u = rng.beta(0.9, 1.1, 120)
    p = np.clip(u + np.linspace(-0.25, 0.25, m)[:, None], 0, 1)
    names = [f"{_STEMS[i % 3]}.{i}" for i in range(m)]
    return bn.from_arrays(rng.binomial(4, p), np.full(p.shape, 4), models=names)


def _layout(binary, report, profile, width=1280):
    devtools = DevTools(binary, profile)
    try:
        target = devtools.send("Target.createTarget", url="about:blank")["targetId"]
        session = devtools.send("Target.attachToTarget", targetId=target, flatten=True)
        session = session["sessionId"]
        devtools.send("Page.enable", session)
        devtools.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=1600,
            deviceScaleFactor=1,
            mobile=False,
        )
        devtools.send("Page.navigate", session, url=report.resolve().as_uri())
        devtools.wait_for("Page.loadEventFired")
        facts = json.loads(_value(devtools, session, LAYOUT))
        if os.environ.get("BAYESNOISE_SCREENSHOT"):  # the whole page, to look at
            import base64

            shot = devtools.send(
                "Page.captureScreenshot", session, format="png", captureBeyondViewport=True
            )["data"]
            out = os.environ["BAYESNOISE_SCREENSHOT"].removesuffix(".png")
            with open(f"{out}-{report.stem}.png", "wb") as fh:
                fh.write(base64.b64decode(shot))
    finally:
        devtools.close()
    return facts


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("m", [3, 50])
def test_report_layout_at_leaderboard_size(m, tmp_path):
    """At 1280 px: no table or figure wider than its section, the model and pair tables show
    their last column (kappa status, verdict) without scrolling, a wider table scrolls in its
    own box, the forest plot is <= 1,400 px tall, K prints as an integer, ranks are shown."""
    binary = _browser()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = write_report({f"m{m}": _leaderboard(m)}, tmp_path / f"m{m}.html", progress=False)
    facts = _layout(binary, report, tmp_path / "profile")
    assert facts["page"][0] <= facts["page"][1], "the page scrolls sideways"
    for t in facts["tables"]:
        assert t["right"] <= t["limit"] + 0.5, t  # the box stays inside its section
        if t["wrapped"]:
            assert t["overflow"] == "auto", t  # anything wider scrolls inside the box
        else:
            assert t["table"] <= t["box"], t
        if t["css"].split()[-1] in ("model-table", "pair-table"):
            assert t["table"] <= t["box"] and t["lastRight"] <= t["right"], t
    assert all(f["right"] <= facts["page"][1] for f in facts["figures"])
    forest = [f for f in facts["figures"] if f["name"] == "forest"]
    assert len(forest) == 1 and 0 < forest[0]["natural"] <= 1400
    assert len(facts["k"]) == m and set(facts["k"]) == {"4"}
    assert facts["ranks"] == m


HEADLINE = """JSON.stringify({
  screen: window.innerHeight,
  blocks: Array.from(document.querySelectorAll('div.headline')).map(function(d){
    var r = d.getBoundingClientRect(), first = document.querySelector('table');
    return {top: r.top, bottom: r.bottom, text: d.textContent,
            links: Array.from(d.querySelectorAll('a')).map(function(a){ return a.href; }),
            tableTop: first ? first.getBoundingClientRect().top : null};})
})"""


@pytest.mark.browser
@pytest.mark.slow
def test_headline_is_on_the_first_screen_at_49_models(shared_data, tmp_path):
    """Eval-Arena humaneval+ (49 models, K = 1) at 1280 x 800: the report's first screen holds
    the headline (top group with its test, the smallest difference resolved) above any table."""
    binary = _browser()
    data = shared_data / "eval-arena" / "humaneval+.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = write_report([data], tmp_path / "he.html", progress=False)
    assert bn.load(data, progress=False).sizes["model"] == 49
    devtools = DevTools(binary, tmp_path / "profile")
    try:
        target = devtools.send("Target.createTarget", url="about:blank")["targetId"]
        session = devtools.send("Target.attachToTarget", targetId=target, flatten=True)
        session = session["sessionId"]
        devtools.send("Page.enable", session)
        devtools.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=1280,
            height=800,
            deviceScaleFactor=1,
            mobile=False,
        )
        devtools.send("Page.navigate", session, url=report.resolve().as_uri())
        devtools.wait_for("Page.loadEventFired")
        facts = json.loads(_value(devtools, session, HEADLINE))
    finally:
        devtools.close()
    (block,) = facts["blocks"]
    assert 0 <= block["top"] and block["bottom"] <= facts["screen"], block
    assert block["tableTop"] > block["bottom"]
    assert "Top group:" in block["text"] or "Best model:" in block["text"]
    assert "Holm-adjusted over all 1176 pairs" in block["text"]
    assert "Smallest difference this benchmark resolves" in block["text"]
    assert "Most suspect question" in block["text"]
    assert any("decisions" in h for h in block["links"])

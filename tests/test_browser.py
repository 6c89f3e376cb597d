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
from bayesnoise.report.html import write_report

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

    def send(self, method, session=None, timeout=60, **params):
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

    def wait_for(self, method, timeout=60):
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
    var r = i.getBoundingClientRect();
    return {w: r.width, h: r.height, natural: i.naturalWidth, complete: i.complete};}),
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
        report = write_report([data], tmp_path / "report.html", quiet=True)
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
    assert len(facts["figures"]) == 7
    assert all(
        f["complete"] and f["natural"] > 0 and f["w"] > 0 and f["h"] > 0 for f in facts["figures"]
    ), facts["figures"]
    assert sorted(facts["models"]) == sorted(models)
    assert first == sorted(models)[0]  # first click sorts by name, ascending
    assert len(shot) > 1000

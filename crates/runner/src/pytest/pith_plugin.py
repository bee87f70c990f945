"""pith's pytest plugin: streams one JSON record per line to $PITH_REPORT as tests run.

Loaded with `-p pith_plugin` from pith's cache directory; the project is never edited. Every
line is flushed as soon as it is written, so a run that is killed or crashes still leaves the
records of everything that finished and the start records of what was running.

Records (one JSON object per line, key "t" names the kind):
  {"t": "session", "v": 1, "pytest": "9.2.0", "python": "3.11.7", "rootdir": "/abs"}
  {"t": "start", "id": nodeid}
  {"t": "report", "id": nodeid, "when": "setup"|"call"|"teardown"|"???",
   "outcome": "passed"|"failed"|"skipped", "dur": seconds,
   "kind": exception type, "msg": first lines of the error,
   "frames": [[absolute path, 1-based line, source line], ...] outermost first}
  {"t": "finish", "id": nodeid}
  {"t": "collect", "id": nodeid, "kind": ..., "msg": ..., "frames": [...], "text": longrepr tail}
  {"t": "unmatched", "ids": [requested ids that matched no test]}
  {"t": "end", "exit": exit status, "collected": count}

Parametrized ids asked for by pith ($PITH_SELECT, {"ids": [...], "whole": [...]}) are selected
here: pytest is given the function (`t.py::f`), this plugin keeps only the requested
parametrizations (`t.py::f[1]`) and names those that do not exist. pytest itself would report a
missing `t.py::f[9]` as a missing `t.py::f` and run nothing else.

On SIGTERM (pith's deadline) each process writes its threads' stacks to
$PITH_REPORT.<pid>.stacks.

Under pytest-xdist only the controller writes (but for "unmatched", which only workers know:
the first worker writes it); workers attach the failure detail to their reports
(`report.pith`, a plain dict that xdist carries to the controller).

pith must never change the outcome of a run: every hook swallows its own errors.
"""

import json
import os
import signal
import sys

try:
    import faulthandler
except ImportError:  # pragma: no cover - faulthandler is in every CPython 3
    faulthandler = None

import pytest

_MSG_CHARS = 2000
_TEXT_CHARS = 6000
_MAX_FRAMES = 60

_out = None
# Workers of pytest-xdist know themselves from this variable before their config exists; the
# controller alone writes (see pytest_configure).
_active = bool(os.environ.get("PITH_REPORT")) and not os.environ.get("PYTEST_XDIST_WORKER")

# Frames of the machinery that calls a test (pytest, pluggy, unittest, the import system): the
# leading ones are dropped, they say nothing about where the test broke.
_HARNESS_DIRS = []
for _name in ("_pytest", "pluggy", "unittest", "importlib"):
    _mod = sys.modules.get(_name)
    if _mod is None:
        try:
            _mod = __import__(_name)
        except Exception:
            _mod = None
    _file = getattr(_mod, "__file__", None)
    if _file:
        _HARNESS_DIRS.append(os.path.dirname(os.path.abspath(_file)) + os.sep)
_HARNESS_FILES = set()
for _name in ("contextlib", "runpy"):
    _mod = sys.modules.get(_name)
    _file = getattr(_mod, "__file__", None)
    if _file:
        _HARNESS_FILES.add(os.path.abspath(_file))


def _dump_stacks_on_sigterm():
    """At pith's deadline the process group gets SIGTERM: every process (the controller and
    each xdist worker) writes every thread's stack to its own file next to the report, so the
    hanging line is known and dumps of several processes do not interleave, then dies as
    SIGTERM would have made it."""
    report = os.environ.get("PITH_REPORT")
    if not report or faulthandler is None or not hasattr(faulthandler, "register"):
        return
    try:
        if signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
            return
        path = "%s.%d.stacks" % (report, os.getpid())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        faulthandler.register(signal.SIGTERM, file=fd, all_threads=True, chain=True)
    except Exception:
        pass


_dump_stacks_on_sigterm()


def _write(record, force=False):
    global _out
    if not (_active or force):
        return
    try:
        if _out is None:
            path = os.environ.get("PITH_REPORT")
            if not path:
                return
            # A lone surrogate (an undecodable file name) must not cost the record.
            _out = open(path, "a", encoding="utf-8", errors="replace")
        _out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        _out.flush()
    except Exception:
        pass


def _is_harness(path):
    if not path or path.startswith("<"):
        return True
    if path in _HARNESS_FILES:
        return True
    for d in _HARNESS_DIRS:
        if path.startswith(d):
            return True
    return False


def _source_line(path, lineno):
    try:
        import linecache

        return linecache.getline(path, lineno).strip()
    except Exception:
        return ""


def _frames(tb):
    """(absolute path, 1-based line, stripped source) for each traceback entry, outermost
    first, without the leading frames of the test harness."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        path = code.co_filename
        if path and not path.startswith("<"):
            path = os.path.abspath(path)
        out.append([path, tb.tb_lineno, _source_line(path, tb.tb_lineno)])
        tb = tb.tb_next
    start = 0
    while start < len(out) and _is_harness(out[start][0]):
        start += 1
    out = out[start:]
    if len(out) > _MAX_FRAMES:
        # Keep both ends: the test that called and the place that broke.
        half = _MAX_FRAMES // 2
        out = out[:half] + out[-half:]
    return out


def _exconly(exc):
    try:
        import traceback

        lines = traceback.format_exception_only(type(exc), exc)
        return "".join(lines).strip()
    except Exception:
        return type(exc).__name__


def _detail(exc, importing=False):
    """kind, message and frames of an exception. A SyntaxError points at its own line; when a
    module failed to import, that line is the whole story (the rest is the parser)."""
    kind = type(exc).__name__
    frames = _frames(exc.__traceback__)
    if isinstance(exc, SyntaxError):
        msg = "%s: %s" % (kind, exc.msg) if exc.msg else kind
        filename = exc.filename or ""
        if filename and not filename.startswith("<") and exc.lineno:
            path = os.path.abspath(filename)
            where = [path, int(exc.lineno), (exc.text or "").strip()]
            frames = [where] if importing else frames + [where]
    else:
        msg = _exconly(exc)
    return {"kind": kind, "msg": msg[:_MSG_CHARS], "frames": frames}


def _unwrap(exc):
    """The exception the user's code raised, not pytest's wrapper around it."""
    for _ in range(5):
        name = type(exc).__name__
        if name == "ConftestImportFailure" and getattr(exc, "cause", None) is not None:
            exc = exc.cause
        elif name == "CollectError" and exc.__cause__ is not None:
            exc = exc.__cause__
        else:
            break
    return exc


def _longrepr_text(report):
    try:
        text = report.longreprtext
    except Exception:
        text = str(getattr(report, "longrepr", "") or "")
    return text or ""


def _error_line(text):
    """The first line pytest marks as the error ("E   ...") or else the first line."""
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    # xdist heads a worker's report with "[gw0] linux -- Python 3.11.7 /usr/bin/python".
    lines = [l for l in lines if not (l.startswith("[gw") and " -- Python " in l)]
    for l in lines:
        if l.startswith("E "):
            return l[1:].strip()
    return lines[0].strip() if lines else ""


def _item_frame(item):
    try:
        path, lineno, _ = item.reportinfo()
        path = os.path.abspath(str(path))
        if lineno is None:
            return []
        return [[path, int(lineno) + 1, _source_line(path, int(lineno) + 1)]]
    except Exception:
        return []


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # A conftest.py that fails to import stops pytest before any session exists: record it as
    # the collection error it is.
    outcome = yield
    try:
        excinfo = outcome.excinfo
        if excinfo is None or type(excinfo[1]).__name__ != "ConftestImportFailure":
            return
        failure = excinfo[1]
        path = os.path.abspath(str(getattr(failure, "path", "") or "conftest.py"))
        try:
            nodeid = os.path.relpath(path, str(early_config.rootpath)).replace(os.sep, "/")
        except Exception:
            nodeid = path
        record = {"t": "collect", "id": nodeid, "text": ""}
        record.update(_detail(_unwrap(failure), importing=True))
        _write(record)
    except Exception:
        pass


def pytest_configure(config):
    global _active
    _active = _active and not hasattr(config, "workerinput")
    version = getattr(pytest, "__version__", "")
    try:
        rootdir = str(config.rootpath)
    except Exception:
        rootdir = str(getattr(config, "rootdir", ""))
    _write(
        {
            "t": "session",
            "v": 1,
            "pytest": version,
            "python": "%d.%d.%d" % sys.version_info[:3],
            "rootdir": rootdir,
        }
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    try:
        report = outcome.get_result()
        if not report.failed:
            return
        excinfo = call.excinfo
        if excinfo is not None:
            exc = _unwrap(excinfo.value)
            detail = _detail(exc)
            if type(exc).__name__ == "FixtureLookupError":
                # "fixture 'x' not found": pytest's own words, at the test that asked.
                detail["msg"] = _error_line(_longrepr_text(report)) or detail["msg"]
                detail["frames"] = _item_frame(item)
            elif not detail["frames"]:
                detail["frames"] = _item_frame(item)
        else:
            # No exception: a strict XPASS or a plugin's verdict.
            detail = {
                "kind": None,
                "msg": _error_line(_longrepr_text(report))[:_MSG_CHARS],
                "frames": _item_frame(item),
            }
        report.pith = detail
    except Exception:
        pass


def pytest_runtest_logstart(nodeid, location):
    _write({"t": "start", "id": nodeid})


def pytest_runtest_logfinish(nodeid, location):
    _write({"t": "finish", "id": nodeid})


def pytest_runtest_logreport(report):
    if not _active:
        return
    try:
        record = {
            "t": "report",
            "id": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "dur": round(float(getattr(report, "duration", 0.0) or 0.0), 6),
        }
        if report.failed:
            detail = getattr(report, "pith", None)
            if not isinstance(detail, dict):
                detail = {
                    "kind": None,
                    "msg": _error_line(_longrepr_text(report))[:_MSG_CHARS],
                    "frames": [],
                }
            record.update(detail)
            if report.when not in ("setup", "call", "teardown"):
                # An xdist worker crash: the text tells which worker and how.
                record["text"] = _longrepr_text(report)[-_TEXT_CHARS:]
        elif hasattr(report, "wasxfail"):
            record["xfail"] = True
        _write(record)
    except Exception:
        pass


def pytest_exception_interact(node, call, report):
    # Collection errors: the only place pytest hands over the exception itself.
    try:
        if getattr(report, "when", None) == "collect" or type(report).__name__ == "CollectReport":
            if call.excinfo is not None:
                report.pith = _detail(_unwrap(call.excinfo.value), importing=True)
    except Exception:
        pass


def pytest_collectreport(report):
    if not _active or not report.failed:
        return
    try:
        text = _longrepr_text(report)
        detail = getattr(report, "pith", None)
        if not isinstance(detail, dict):
            detail = {"kind": None, "msg": _error_line(text), "frames": []}
        record = {"t": "collect", "id": report.nodeid, "text": text[-_TEXT_CHARS:]}
        record.update(detail)
        _write(record)
    except Exception:
        pass


def _selection():
    try:
        sel = json.loads(os.environ.get("PITH_SELECT") or "{}")
        return [str(i) for i in sel.get("ids", [])], [str(i) for i in sel.get("whole", [])]
    except Exception:
        return [], []


def _key(nodeid, path=None):
    """(normalized absolute file, the rest of the id) of a requested id or an item."""
    file, _, rest = nodeid.partition("::")
    return os.path.normcase(os.path.abspath(str(path) if path is not None else file)), rest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    ids, whole = _selection()
    if not ids:
        return
    try:
        wanted = dict((_key(i), i) for i in ids)
        groups = set((p, r.split("[", 1)[0]) for (p, r) in wanted)
        entire = set(_key(b) for b in whole)
        matched = set()
        keep = []
        drop = []
        for item in items:
            k = _key(item.nodeid, getattr(item, "path", None) or getattr(item, "fspath", None))
            if k in wanted:
                matched.add(wanted[k])
                keep.append(item)
                continue
            base = (k[0], k[1].split("[", 1)[0])
            if base in groups and base not in entire:
                drop.append(item)
            else:
                keep.append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
        unmatched = [i for i in ids if i not in matched]
        # Under xdist every worker collects alike; the first one speaks for all.
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        if unmatched and (_active or worker == "gw0"):
            _write({"t": "unmatched", "ids": unmatched}, force=True)
    except Exception:
        pass


def pytest_collection_finish(session):
    # Under xdist the controller collects nothing; its workers' count arrives below.
    if _active and not _xdist_controller(session.config):
        try:
            _write({"t": "selected", "n": len(session.items)})
        except Exception:
            pass


def _xdist_controller(config):
    return getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput")


_selected_told = False


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    # Every worker collects the same items; the first to finish speaks for all.
    global _selected_told
    if _selected_told or not _active:
        return
    _selected_told = True
    try:
        _write({"t": "selected", "n": len(ids)})
    except Exception:
        pass


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    try:
        _write(
            {
                "t": "end",
                "exit": int(exitstatus),
                "collected": int(getattr(session, "testscollected", 0) or 0),
            }
        )
    except Exception:
        pass


def pytest_unconfigure(config):
    global _out
    try:
        if _out is not None:
            _out.close()
    except Exception:
        pass
    _out = None

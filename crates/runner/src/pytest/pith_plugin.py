"""pith's pytest plugin: streams one JSON record per line to $PITH_REPORT as tests run.

Loaded with `-p pith_<hash of this file>` from pith's cache directory, a module name no
project uses, so a project file cannot stand in for it; the project is never edited. Every line
is written straight to the file as soon as it is made, so a run that is killed or crashes still
leaves the records of everything that finished and the start records of what was running. Each
string in a record is bounded, so a record is a line pith reads in bounded memory.

Records (one JSON object per line, key "t" names the kind):
  {"t": "session", "v": 1, "pytest": "9.2.0", "python": "3.11.7", "rootdir": "/abs"}
  {"t": "start", "id": nodeid}
  {"t": "report", "id": nodeid, "when": "setup"|"call"|"teardown"|"???",
   "outcome": "passed"|"failed"|"skipped", "dur": seconds,
   "kind": exception type, "msg": first lines of the error,
   "frames": [[absolute path, 1-based line, source line], ...] outermost first,
   "chain": the exceptions it was raised from or while handling (optional),
   "left"/"right": reprs of a failed `==` assertion's operands (optional),
   "out": a failed phase's own text as pytest's FAILURES section shows it: its traceback,
   then its captured stdout, stderr and log (optional, its last _OUT_CHARS characters)}
  {"t": "finish", "id": nodeid}
  {"t": "collect", "id": nodeid, "kind": ..., "msg": ..., "frames": [...], "text": longrepr tail}
  {"t": "unmatched", "ids": [requested ids that matched no test]}
  {"t": "selected", "n": tests pytest set out to run, after deselection}
  {"t": "end", "exit": exit status, "collected": count}
  {"t": "fault", "lost": records that could not be written so far, "why": the first reason}
  {"t": "trace", "id": nodeid, "lines": {traced file as given: [executed lines]}}
  {"t": "loads", "file": test file (absolute), "modules": [absolute files it loaded by name]}
  {"t": "imported", "lines": {traced file as given: [lines its import ran]}}

Tracing ($PITH_TRACE, {"files": [absolute paths]}): pith re-runs a few failing tests to learn
which lines of the changed files each one executes. Every test then records, over its setup,
call and teardown, the lines of those files alone, through `sys.monitoring` (Python 3.12+, a
tool id of its own: each code object's first start, then disabled, gives the traced files'
code LINE events of their own and other code none; each line is told once per test, then
disabled until the next test's `restart_events`) or else
`sys.settrace` (a global function that leaves other files' frames untraced, chaining a Python
tracer already set and restoring whatever was set after each test). The variable is taken out
of the environment at import, so tests never see it; xdist workers get it through their
`workerinput`.

Tracing in the run itself ($PITH_RETRACE, {"files": [...], "tests": N, "share": S, "floor":
F}): the run is not traced; after its last test, the first N tests that failed run again in
this process, traced as above, their verdicts told to no one (pytest's `runtestprotocol`
without logging: no report, no exit status, no terminal line changes), while the time they
took the first time, plus the run's longest setup (the session's fixtures are set up again),
fits in S times the loop's plus F seconds. A second process would start Python, pytest and the
collection again for a few tests. Not under xdist (the tests ran in other processes).

Dynamic loads: while a test file is collected and while each of its tests runs,
`importlib.import_module` and `builtins.__import__` note the names they are asked for, and the
session's end tells, per test file, the files of those modules (the import graph cannot follow
a name computed at run time; pith keeps what the run saw).

Parametrized ids asked for by pith ($PITH_SELECT, {"ids": [...], "whole": [...]}) are selected
here: pytest is given the function (`t.py::f`), this plugin keeps only the requested
parametrizations (`t.py::f[1]`) and names those that do not exist. pytest itself would report a
missing `t.py::f[9]` as a missing `t.py::f` and run nothing else.

On SIGTERM (pith's deadline) each process writes its threads' stacks to
$PITH_REPORT.<pid>.stacks.

Under pytest-xdist only the controller writes (but for "unmatched", which only workers know:
the first worker writes it); workers attach the failure detail to their reports
(`report.pith`, a plain dict that xdist carries to the controller).

pith must never change the outcome of a run: every hook swallows its own errors. And a test
cannot take its own record with it: the plugin encodes and writes with private copies of what
it needs, taken at import, and says in a "fault" record when a write failed.
"""

import builtins as _builtins
import os
import signal
import sys

try:
    import faulthandler
except ImportError:  # pragma: no cover - faulthandler is in every CPython 3
    faulthandler = None
try:
    import linecache as _linecache
    import traceback as _traceback
except ImportError:  # pragma: no cover - both are in every CPython 3
    _linecache = _traceback = None

import pytest

# A test may patch anything while it runs (`builtins.open`, `os.write`, `json.dumps`,
# `os.path.abspath`...), and the hooks that record its failure run before the patch is undone.
# So every name the hooks use is bound here, at import, to the real thing: module globals are
# looked up before builtins, and the functions below never reach through a module attribute.
for _name in (
    "AssertionError", "BaseException", "Exception", "bool", "dict", "enumerate", "float",
    "getattr", "hasattr", "int", "isinstance", "len", "list", "repr", "round", "set", "str",
    "tuple", "type",
):
    globals()[_name] = getattr(_builtins, _name)
_os_open = os.open
_os_write = os.write
_os_fstat = os.fstat
_os_getpid = os.getpid
_abspath = os.path.abspath
_dirname = os.path.dirname
_relpath = os.path.relpath
_normcase = os.path.normcase
_SEP = os.sep
_getline = getattr(_linecache, "getline", None)
_format_exception_only = getattr(_traceback, "format_exception_only", None)
_environ_get = os.environ.get
_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)

_MSG_CHARS = 2000
# A failed `==` assertion's operands: enough of each to find where they first differ.
_OPERAND_CHARS = 4000
# Links of an exception's chain (`raise ... from`, raised while handling) that are told.
_CHAIN_LINKS = 4
# The deepest frames sent for each link of the chain (pith shows the project's deepest few).
_CHAIN_FRAMES = 8
_TEXT_CHARS = 6000
_OUT_CHARS = 8000
_CODE_CHARS = 400
_PATH_CHARS = 4096
_MAX_FRAMES = 60
# No string in a record is longer than this, whatever it is (a node id made of a huge
# parameter): a record stays a line pith can read in bounded memory.
_STR_CHARS = 65536

_REPORT = _environ_get("PITH_REPORT") or ""
_SELECT = _environ_get("PITH_SELECT") or ""
_TRACE = _environ_get("PITH_TRACE") or ""
_RETRACE = _environ_get("PITH_RETRACE") or ""
# Workers of pytest-xdist know themselves from this variable before their config exists; the
# controller alone writes (see pytest_configure).
_WORKER = _environ_get("PYTEST_XDIST_WORKER") or ""
_active = bool(_REPORT) and not _WORKER


def _leave_no_trace():
    """pith put this file's directory on PYTHONPATH so that `-p` finds it: the tests see the
    caller's PYTHONPATH, and their own Python subprocesses do not inherit the entry. Python
    started with it on sys.path already, which pytest-xdist hands to its workers."""
    try:
        here = _dirname(_abspath(__file__))
        value = os.environ.get("PYTHONPATH")
        if value is None:
            return
        rest = [p for p in value.split(os.pathsep) if p and _abspath(p) != here]
        if rest:
            os.environ["PYTHONPATH"] = os.pathsep.join(rest)
        else:
            del os.environ["PYTHONPATH"]
    except Exception:
        pass


def _unbuffer():
    """What pytest prints before a crash or pith's deadline is part of the evidence: flush it
    line by line. Done here rather than through PYTHONUNBUFFERED so that the tests' own Python
    subprocesses keep the caller's buffering."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True, write_through=True)
        except Exception:
            pass


def _enable_faulthandler():
    """A segfault before pytest's own faulthandler is on (importing a conftest.py) still dumps
    the stacks that name the line. Done here rather than through PYTHONFAULTHANDLER so that the
    tests' subprocesses keep the caller's setting."""
    try:
        if faulthandler is not None and not faulthandler.is_enabled():
            faulthandler.enable()
    except Exception:
        pass


for _var in ("PITH_TRACE", "PITH_RETRACE"):
    # pith's own word to this plugin: the tests' world has no such variable.
    try:
        del os.environ[_var]
    except Exception:
        pass

if _REPORT:
    _leave_no_trace()
    _unbuffer()
    _enable_faulthandler()

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
        _HARNESS_DIRS.append(_dirname(_abspath(_file)) + _SEP)
_HARNESS_FILES = set()
for _name in ("contextlib", "runpy"):
    _mod = sys.modules.get(_name)
    _file = getattr(_mod, "__file__", None)
    if _file:
        _HARNESS_FILES.add(_abspath(_file))


def _dump_stacks_on_sigterm():
    """At pith's deadline the process group gets SIGTERM: every process (the controller and
    each xdist worker) writes every thread's stack to its own file next to the report, so the
    hanging line is known and dumps of several processes do not interleave, then dies as
    SIGTERM would have made it."""
    if not _REPORT or faulthandler is None or not hasattr(faulthandler, "register"):
        return
    try:
        if signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
            return
        path = "%s.%d.stacks" % (_REPORT, _os_getpid())
        fd = _os_open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        faulthandler.register(signal.SIGTERM, file=fd, all_threads=True, chain=True)
    except Exception:
        pass


_dump_stacks_on_sigterm()


# JSON, written here rather than by the json module: a test that patches `json.dumps` or
# `json.JSONEncoder` must not cost its own failure record.
_ESCAPES = dict((i, "\\u%04x" % i) for i in range(0x20))
_ESCAPES.update({0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})
_str_translate = str.translate
_int_repr = int.__repr__
_float_repr = float.__repr__
_INFINITIES = (float("inf"), float("-inf"))
_join = "".join


def _json_str(s):
    if len(s) > _STR_CHARS:
        s = s[:_STR_CHARS]
    return '"' + _str_translate(s, _ESCAPES) + '"'


def _json(value, out):
    t = type(value)
    if t is str:
        out.append(_json_str(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif t is int:
        out.append(_int_repr(value))
    elif t is float:
        finite = value == value and value not in _INFINITIES
        out.append(_float_repr(value) if finite else "null")
    elif t is dict:
        out.append("{")
        first = True
        for k, v in value.items():
            if not first:
                out.append(",")
            first = False
            out.append(_json_str(k if type(k) is str else _text(k)))
            out.append(":")
            _json(v, out)
        out.append("}")
    elif t is list or t is tuple:
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _json(v, out)
        out.append("]")
    else:
        out.append(_json_str(_text(value)))


def _text(value):
    try:
        return str(value)
    except Exception:
        return type(value).__name__


def _cap(s, n):
    s = s if type(s) is str else _text(s)
    return s if len(s) <= n else s[:n]


def _tail(s, n):
    s = s if type(s) is str else _text(s)
    return s if len(s) <= n else s[-n:]


_fd = None
_fd_id = None
# Records that could not be written, and the first reason: said in a "fault" record as soon as
# one can be written, so pith knows the report is incomplete rather than trusting it.
_lost = 0
_lost_why = ""
_lost_told = 0
# A write that failed half-way left a partial line: the next one starts on a line of its own.
_broken_line = False


def _open():
    global _fd, _fd_id
    if _fd is not None:
        try:
            st = _os_fstat(_fd)
            if (st.st_dev, st.st_ino) == _fd_id:
                return _fd
        except Exception:
            pass
        # A test closed the descriptor (and the number may now be a file of its own): never
        # write there, open the report again.
        _fd = None
    fd = _os_open(_REPORT, _APPEND, 0o600)
    st = _os_fstat(fd)
    _fd, _fd_id = fd, (st.st_dev, st.st_ino)
    return fd


def _emit(line):
    global _broken_line
    data = line.encode("utf-8", "replace")
    if _broken_line:
        data = b"\n" + data
    fd = _open()
    total = len(data)
    try:
        while data:
            n = _os_write(fd, data)
            data = data[n:]
    except BaseException:
        _broken_line = _broken_line or len(data) < total
        raise
    _broken_line = False


def _write(record, force=False):
    global _lost, _lost_why
    if not (_active or force) or not _REPORT:
        return
    try:
        out = []
        _json(record, out)
        line = _join(out) + "\n"
    except BaseException as e:
        # Not one of pith's records would fail here; keep what says what happened.
        line = None
        why = "encoding: %s" % _text(type(e).__name__)
        basic = dict((k, record.get(k)) for k in ("t", "id", "when", "outcome") if k in record)
        try:
            out = []
            _json(basic, out)
            line = _join(out) + "\n"
        except BaseException:
            pass
        _lost += 1
        _lost_why = _lost_why or why
        if line is None:
            return
    try:
        # The record first: it may be a failure, the one thing that must not be lost.
        _emit(line)
    except BaseException as e:
        _lost += 1
        _lost_why = _lost_why or "writing %s: %s" % (_REPORT, _text(e))
    _tell_faults()


def _tell_faults():
    """Says in a "fault" record how many records were lost so far, once per new loss."""
    global _lost_told
    if _lost <= _lost_told:
        return
    try:
        out = []
        _json({"t": "fault", "lost": _lost, "why": _cap(_lost_why, _MSG_CHARS)}, out)
        _emit(_join(out) + "\n")
        _lost_told = _lost
    except BaseException:
        pass


if _active:
    try:
        _open()
    except Exception as e:
        _lost_why = "opening %s: %s" % (_REPORT, _text(e))

# pith's selection, read once: a test that patches `json.loads` or `os.environ` cannot change it.
_SELECTED_IDS = []
_SELECTED_WHOLE = []
if _SELECT:
    try:
        import json as _json_module

        _sel = _json_module.loads(_SELECT)
        _SELECTED_IDS = [str(i) for i in _sel.get("ids", [])]
        _SELECTED_WHOLE = [str(i) for i in _sel.get("whole", [])]
    except Exception:
        pass


# --- Tracing: the lines of the changed files each test executes ($PITH_TRACE) ---

_realpath = os.path.realpath
_sys_settrace = sys.settrace
_sys_gettrace = sys.gettrace
_monitoring = getattr(sys, "monitoring", None)
# Tool ids sys.monitoring reserves for nobody (0 debugger, 1 coverage, 2 profiler, 5
# optimizer): pith never takes one a debugger or coverage.py would look for.
_FREE_TOOLS = (4, 3)

# normalized real path of a traced file -> the path as pith gave it
_trace_wanted = {}
# a code object's file name -> the path as given, or None for a file not traced
_trace_seen = {}
# The running test's lines ({path as given: set of lines}); None between tests.
_trace_lines = None
_trace_tool = None
# Code objects given LINE events of their own (to take them back at the end).
_trace_codes = set()
# Whether a test was traced already: its disabled events must come back for the next one.
_trace_restart = [False]
# The trace function set before the running test (restored after it), and the one of those
# that is a Python function, which pith's own chains to.
_trace_saved = None
_trace_chained = None


def _trace_files(raw):
    try:
        import json as _json_module

        return [str(f) for f in _json_module.loads(raw).get("files", []) if f]
    except Exception:
        return []


def _trace_configure(raw):
    for f in _trace_files(raw):
        try:
            _trace_wanted[_normcase(_realpath(f))] = f
        except Exception:
            pass


# Whether every test is traced ($PITH_TRACE: a tracing re-run), not only failing ones again.
_trace_each = [False]
if _TRACE:
    _trace_configure(_TRACE)
    _trace_each[0] = True
elif _RETRACE:
    _trace_configure(_RETRACE)


def _traced_path(filename):
    try:
        return _trace_seen[filename]
    except KeyError:
        pass
    path = None
    try:
        if filename and not filename.startswith("<"):
            path = _trace_wanted.get(_normcase(_realpath(filename)))
    except Exception:
        path = None
    _trace_seen[filename] = path
    return path


def _add_line(path, line):
    lines = _trace_lines
    if lines is not None:
        got = lines.get(path)
        if got is None:
            got = lines[path] = set()
        got.add(line)


def _on_start(code, offset):
    """sys.monitoring's PY_START callback, once per code object (DISABLE): the code of a traced
    file gets LINE events of its own, any other code no more events at all."""
    try:
        if _traced_path(code.co_filename) is not None:
            _monitoring.set_local_events(_trace_tool, code, _monitoring.events.LINE)
            _trace_codes.add(code)
    except Exception:
        pass
    return _monitoring.DISABLE


def _on_line(code, line):
    """A line is told once per test: a hot loop in a changed file costs one call per line.
    The next test's start turns the events back on (`restart_events`)."""
    path = _traced_path(code.co_filename)
    if path is not None:
        _add_line(path, line)
    return _monitoring.DISABLE


def _claim_tool():
    global _trace_tool
    if _trace_tool is not None:
        return True
    for tool in _FREE_TOOLS:
        try:
            if _monitoring.get_tool(tool) is not None:
                continue
            _monitoring.use_tool_id(tool, "pith")
        except Exception:
            continue
        try:
            _trace_tool = tool
            events = _monitoring.events
            _monitoring.register_callback(tool, events.LINE, _on_line)
            _monitoring.register_callback(tool, events.PY_START, _on_start)
            _monitoring.set_events(tool, events.PY_START)
        except Exception:
            _release_tool(tool)
            _trace_tool = None
            return False
        return True
    return False


def _release_tool(tool):
    """Leaves no event of pith's behind: Python 3.12's free_tool_id keeps them."""
    steps = [lambda c=c: _monitoring.set_local_events(tool, c, 0) for c in _trace_codes]
    steps += [
        lambda: _monitoring.set_events(tool, 0),
        lambda: _monitoring.register_callback(tool, _monitoring.events.LINE, None),
        lambda: _monitoring.register_callback(tool, _monitoring.events.PY_START, None),
        lambda: _monitoring.free_tool_id(tool),
    ]
    for step in steps:
        try:
            step()
        except Exception:
            pass
    _trace_codes.clear()


def _settrace_local(path, chained):
    """The local trace function of a traced file's frame: records its lines and passes every
    event on to the local function of the tracer it chains to, as that one would have seen it."""

    def local(frame, event, arg):
        nonlocal chained
        if event == "line":
            _add_line(path, frame.f_lineno)
        if chained is not None:
            try:
                chained = chained(frame, event, arg)
            except Exception:
                chained = None
        return local

    return local


def _settrace_global(frame, event, arg):
    """The global trace function: frames of other files get no local tracing from pith (so
    their lines cost nothing), only the chained tracer's, as before."""
    prev = _trace_chained
    local = None
    if prev is not None:
        try:
            local = prev(frame, event, arg)
        except Exception:
            local = None
    path = _traced_path(frame.f_code.co_filename)
    if path is None:
        return local
    return _settrace_local(path, local)


def _is_python_tracer(fn):
    """A Python function or bound method can be chained; a C tracer (coverage.py's CTracer)
    cannot: called from Python it installs itself again in place of the caller."""
    name = type(fn).__name__
    return name in ("function", "method")


def _trace_begin():
    global _trace_lines, _trace_saved, _trace_chained
    if not _trace_wanted or _trace_lines is not None:
        return
    try:
        if _monitoring is not None:
            if _claim_tool():
                if _trace_restart[0]:
                    _monitoring.restart_events()
                _trace_restart[0] = True
                _trace_lines = {}
            return
        prev = _sys_gettrace()
        _trace_saved = prev
        _trace_chained = prev if prev is not None and _is_python_tracer(prev) else None
        _trace_lines = {}
        _sys_settrace(_settrace_global)
    except Exception:
        _trace_lines = None


def _trace_end():
    """Stops recording the running test and returns its lines ({path: sorted list}), or None
    when it was not traced. Whatever trace function was set before the test is set again."""
    global _trace_lines, _trace_saved, _trace_chained
    lines = _trace_lines
    if lines is None:
        return None
    _trace_lines = None
    if _monitoring is None:
        try:
            _sys_settrace(_trace_saved)
        except Exception:
            pass
        _trace_saved = _trace_chained = None
    try:
        return dict((path, sorted(got)) for path, got in lines.items())
    except Exception:
        return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _trace_each[0]:
        _trace_begin()
    _loads_begin(item)
    try:
        yield
    finally:
        _loads_end()
        # The teardown's report took the lines; this only stops a test that never got there.
        _trace_end()


# --- Dynamic loads: modules a test file loads by a name computed at run time ---

try:
    import importlib as _importlib
except ImportError:  # pragma: no cover - importlib is in every CPython 3
    _importlib = None
_real_import_module = getattr(_importlib, "import_module", None)
_real_dunder_import = _builtins.__import__
# The test file being collected or run (its path as pytest has it), else None.
_loads_file = [None]
# test file -> names of the modules asked for while it was current
_loads = {}
_MAX_LOADS = 200


def _note_load(name):
    f = _loads_file[0]
    if f is None or not isinstance(name, str):
        return
    got = _loads.get(f)
    if got is None:
        got = _loads[f] = set()
    if len(got) < _MAX_LOADS:
        got.add(name)


def _pith_import_module(name, package=None):
    module = _real_import_module(name, package)
    if _loads_file[0] is not None:
        try:
            _note_load(module.__name__)
        except Exception:
            pass
    return module


try:
    import opcode as _opcode

    _IMPORT_NAME = _opcode.opmap.get("IMPORT_NAME")
except Exception:  # pragma: no cover - opcode is in every CPython 3
    _IMPORT_NAME = None
_getframe = getattr(sys, "_getframe", None)


def _is_statement(frame):
    """Whether the caller is an `import` statement (which the graph reads) rather than a call
    of `__import__` by a computed name."""
    try:
        return frame.f_code.co_code[frame.f_lasti] == _IMPORT_NAME
    except Exception:
        return False


def _pith_dunder_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = _real_dunder_import(name, globals, locals, fromlist, level)
    if level == 0 and _loads_file[0] is not None and _getframe is not None:
        if not _is_statement(_getframe(1)):
            _note_load(name)
    return module


def _loads_install():
    """Both stay for the session (a module may bind `import_module` once, at import): outside a
    test file's collection and tests they only pass the call on."""
    try:
        if _real_import_module is not None:
            _importlib.import_module = _pith_import_module
        _builtins.__import__ = _pith_dunder_import
    except Exception:
        pass


def _loads_uninstall():
    # Only what is still pith's: a test that patched one and left its patch keeps it.
    try:
        if _importlib is not None and _importlib.import_module is _pith_import_module:
            _importlib.import_module = _real_import_module
        if _builtins.__import__ is _pith_dunder_import:
            _builtins.__import__ = _real_dunder_import
    except Exception:
        pass


def _loads_begin(node):
    try:
        path = getattr(node, "path", None) or getattr(node, "fspath", None)
        _loads_file[0] = str(path) if path is not None else None
    except Exception:
        _loads_file[0] = None


def _loads_end():
    _loads_file[0] = None


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # A test module is imported while it is collected: what its import loads by name is its.
    module = isinstance(collector, pytest.Module)
    if module:
        _loads_begin(collector)
    try:
        yield
    finally:
        if module:
            _loads_end()


def _write_loads():
    modules = sys.modules
    for test_file, names in list(_loads.items()):
        files = []
        for name in sorted(names):
            try:
                f = getattr(modules.get(name), "__file__", None)
            except Exception:
                f = None
            if isinstance(f, str) and f:
                files.append(_abspath(f))
        if files:
            _write({"t": "loads", "file": _text(test_file), "modules": files})


def _retrace_plan(raw):
    try:
        import json as _json_module

        plan = _json_module.loads(raw)
        return (
            int(plan.get("tests", 0)),
            float(plan.get("share", 0.0)),
            float(plan.get("floor", 0.0)),
        )
    except Exception:
        return 0, 0.0, 0.0


# Failed tests of the run, in order, every test's time over its phases, and the longest setup
# of any test (for $PITH_RETRACE).
_failed_order = []
_failed_seen = set()
_spent = {}
_longest_setup = [0.0]


def _note_outcome(report):
    try:
        nodeid = report.nodeid
        took = float(getattr(report, "duration", 0.0) or 0.0)
        _spent[nodeid] = _spent.get(nodeid, 0.0) + took
        if report.when == "setup" and took > _longest_setup[0]:
            _longest_setup[0] = took
        if report.failed and nodeid not in _failed_seen:
            _failed_seen.add(nodeid)
            _failed_order.append(nodeid)
    except Exception:
        pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    import time as _time_module

    began = _time_module.monotonic()
    outcome = yield
    if not _RETRACE or not _trace_wanted or not _failed_order or not _active:
        return
    try:
        if outcome.excinfo is not None or _xdist_controller(session.config):
            return
        _retrace(session, _time_module.monotonic() - began, _time_module.monotonic)
    except BaseException:
        # Whatever happens here happened after every verdict was told: it changes none.
        pass


def _import_lines(path):
    """The lines of a Python file that run when it is imported: its module code and class
    bodies (a `def` line included, a function's body not)."""
    import types as _types

    optimized = 0x0001  # CO_OPTIMIZED: functions, lambdas and comprehensions, not class bodies
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    lines = set()
    todo = [code]
    while todo:
        c = todo.pop()
        if hasattr(c, "co_lines"):
            lines.update(line for _, _, line in c.co_lines() if line)
        else:  # pragma: no cover - Python < 3.10
            import dis

            lines.update(line for _, line in dis.findlinestarts(c))
        for k in c.co_consts:
            if isinstance(k, _types.CodeType) and not k.co_flags & optimized:
                todo.append(k)
    return sorted(lines)


def _write_import_lines():
    """For each traced file the tests' process imported: the lines its import ran. A test
    traced after the import (every test, for a module imported at collection) executed them
    without a trace event: pith counts them for the tests whose files import it."""
    modules = sys.modules
    done = set()
    lines = {}
    for module in list(modules.values()):
        try:
            f = getattr(module, "__file__", None)
            if not isinstance(f, str) or f in done:
                continue
            done.add(f)
            given = _trace_wanted.get(_normcase(_realpath(f)))
            if given is not None:
                lines[given] = _import_lines(f)
        except Exception:
            pass
    if lines:
        _write({"t": "imported", "lines": lines})


def _retrace(session, loop, clock):
    from _pytest.runner import runtestprotocol

    most, share, floor = _retrace_plan(_RETRACE)
    budget = loop * share + floor
    by_id = dict((item.nodeid, item) for item in session.items)
    # What the loop left set up (a run stopped by -x) goes first, as pytest's end would.
    session._setupstate.teardown_exact(None)
    # One failing test of each file first: many failures of one cause are one cluster, and a
    # handful of traced tests should speak for several.
    firsts, rest, files = [], [], set()
    for nodeid in _failed_order:
        f = nodeid.split("::", 1)[0]
        (rest if f in files else firsts).append(nodeid)
        files.add(f)
    for nodeid in (firsts + rest)[:most]:
        item = by_id.get(nodeid)
        # The session's fixtures were torn down with the last test: the re-run sets up again
        # what it needs, which may be what the run's longest setup built (a database, a
        # container) although this test's own setup found it ready.
        took = _spent.get(nodeid, 0.0) + _longest_setup[0]
        if item is None or took > budget:
            continue
        started = clock()
        if hasattr(item, "_initrequest"):
            item._initrequest()
        _trace_begin()
        try:
            reports = runtestprotocol(item, nextitem=None, log=False)
        finally:
            lines = _trace_end()
        for report in reports:
            if getattr(report, "when", None) == "teardown" and lines is None:
                lines = getattr(report, "pith_trace", None)
        if isinstance(lines, dict):
            _write({"t": "trace", "id": _text(nodeid), "lines": lines})
        budget -= clock() - started
    _write_import_lines()


def _write_trace(report):
    lines = getattr(report, "pith_trace", None)
    if not isinstance(lines, dict) or getattr(report, "when", None) != "teardown":
        return
    try:
        _write({"t": "trace", "id": _text(report.nodeid), "lines": lines})
    except Exception:
        pass


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    # An xdist worker's environment has no $PITH_TRACE (taken out at import): it gets the
    # files this way.
    try:
        if _TRACE:
            node.workerinput["pith_trace"] = _TRACE
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
        return _cap(_getline(path, lineno).strip(), _CODE_CHARS)
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
            path = _abspath(path)
        out.append([_cap(path, _PATH_CHARS), tb.tb_lineno, _source_line(path, tb.tb_lineno)])
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
        lines = _format_exception_only(type(exc), exc)
        return _cap(_join(lines), _MSG_CHARS + 100).strip()
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
            path = _cap(_abspath(filename), _PATH_CHARS)
            where = [path, int(exc.lineno), _cap((exc.text or "").strip(), _CODE_CHARS)]
            frames = [where] if importing else frames + [where]
    else:
        msg = _exconly(exc)
    return {"kind": _cap(kind, 200), "msg": _cap(msg, _MSG_CHARS), "frames": frames}


def _chain(exc):
    """The exceptions `exc` was raised from (`__cause__`) or while handling (`__context__`), as
    Python's traceback tells them, the most recent first: each one's own words and its deepest
    frames. The root cause is often there, not in the exception the test saw."""
    out = []
    seen = set()
    for _ in range(_CHAIN_LINKS):
        seen.add(id(exc))
        if exc.__cause__ is not None:
            label = "The direct cause of the above exception:"
            exc = exc.__cause__
        elif exc.__context__ is not None and not exc.__suppress_context__:
            label = "The above exception occurred during handling of:"
            exc = exc.__context__
        else:
            break
        if id(exc) in seen:
            break
        out.append("")
        out.append(label)
        out.append(_exconly(exc))
        for path, line, code in _frames(exc.__traceback__)[-_CHAIN_FRAMES:]:
            out.append("  %s:%s %s" % (path, line, code) if code else "  %s:%s" % (path, line))
    return _cap("\n".join(out), _MSG_CHARS * 2)


# The operands of the last failed `==` in the running test, taken when pytest explains it.
_compared = [None]


def pytest_assertrepr_compare(config, op, left, right):
    # Only looks: returns nothing, so pytest's own explanation is unchanged.
    try:
        if op == "==":
            _compared[0] = (_cap(repr(left), _OPERAND_CHARS), _cap(repr(right), _OPERAND_CHARS))
    except Exception:
        pass
    return None


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
    """The first line pytest marks as the error ("E   ...") or else the first line, bounded."""
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    # xdist heads a worker's report with "[gw0] linux -- Python 3.11.7 /usr/bin/python".
    lines = [l for l in lines if not (l.startswith("[gw") and " -- Python " in l)]
    for l in lines:
        if l.startswith("E "):
            return _cap(l[1:].strip(), _MSG_CHARS)
    return _cap(lines[0].strip(), _MSG_CHARS) if lines else ""


def _item_frame(item):
    try:
        path, lineno, _ = item.reportinfo()
        path = _cap(_abspath(str(path)), _PATH_CHARS)
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
        path = _abspath(str(getattr(failure, "path", "") or "conftest.py"))
        try:
            nodeid = _relpath(path, str(early_config.rootpath)).replace(_SEP, "/")
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
    if _active and not _xdist_controller(config):
        _loads_install()
    try:
        raw = getattr(config, "workerinput", {}).get("pith_trace")
        if raw and not _trace_wanted:
            _trace_configure(raw)
            _trace_each[0] = True
    except Exception:
        pass
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
    # A test's last phase is over when its teardown report is made: its traced lines go with
    # that report (which xdist carries from a worker to the controller).
    lines = _trace_end() if getattr(call, "when", None) == "teardown" else None
    outcome = yield
    if lines is not None:
        try:
            outcome.get_result().pith_trace = lines
        except Exception:
            pass
    try:
        report = outcome.get_result()
        if not report.failed:
            return
        excinfo = call.excinfo
        compared, _compared[0] = _compared[0], None
        if excinfo is not None:
            exc = _unwrap(excinfo.value)
            detail = _detail(exc)
            chain = _chain(exc)
            if chain:
                detail["chain"] = chain
            if compared is not None and isinstance(exc, AssertionError):
                detail["left"], detail["right"] = compared
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
                "msg": _error_line(_longrepr_text(report)),
                "frames": _item_frame(item),
            }
        report.pith = detail
    except Exception:
        pass


def pytest_runtest_logstart(nodeid, location):
    _compared[0] = None
    _write({"t": "start", "id": nodeid})


def pytest_runtest_logfinish(nodeid, location):
    _write({"t": "finish", "id": nodeid})


def pytest_runtest_logreport(report):
    if not _active:
        return
    try:
        record = {
            "t": "report",
            "id": _text(report.nodeid),
            "when": _text(report.when),
            "outcome": _text(report.outcome),
        }
    except Exception:
        return
    # Whatever goes wrong below, the record is written: a failure must never go missing.
    try:
        record["dur"] = round(float(getattr(report, "duration", 0.0) or 0.0), 6)
        # A failed attempt that pytest-rerunfailures runs again ("rerun") keeps its detail too:
        # a test that passes on the rerun is answered with it, as flaky.
        if report.failed or report.outcome == "rerun":
            detail = getattr(report, "pith", None)
            if not isinstance(detail, dict):
                detail = {"kind": None, "msg": "", "frames": []}
                detail["msg"] = _error_line(_longrepr_text(report))
            record.update(detail)
            record["out"] = _tail(_own_output(report), _OUT_CHARS)
            if report.when not in ("setup", "call", "teardown"):
                # An xdist worker crash: the text tells which worker and how.
                record["text"] = _tail(_longrepr_text(report), _TEXT_CHARS)
        elif hasattr(report, "wasxfail"):
            record["xfail"] = True
    except Exception:
        pass
    _write(record)
    _write_trace(report)
    _note_outcome(report)


def _own_output(report):
    """A failed phase's text as pytest's FAILURES section shows it: the traceback, then each
    captured section under its title."""
    parts = [_longrepr_text(report)]
    for title, content in getattr(report, "sections", None) or ():
        parts.append("%s %s %s" % ("-" * 29, _text(title), "-" * 29))
        parts.append(_text(content).rstrip("\n"))
    return "\n".join(p for p in parts if p)


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
        record = {"t": "collect", "id": report.nodeid, "text": _tail(text, _TEXT_CHARS)}
        record.update(detail)
        _write(record)
    except Exception:
        pass


def _key(nodeid, path=None):
    """(normalized absolute file, the rest of the id) of a requested id or an item."""
    file, _, rest = nodeid.partition("::")
    return _normcase(_abspath(str(path) if path is not None else file)), rest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    ids, whole = _SELECTED_IDS, _SELECTED_WHOLE
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
        if unmatched and (_active or _WORKER == "gw0"):
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
    global _trace_tool
    _loads_uninstall()
    if _active:
        try:
            _write_loads()
            if _trace_each[0]:
                _write_import_lines()
        except Exception:
            pass
    if _trace_tool is not None:
        _release_tool(_trace_tool)
        _trace_tool = None
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
    _tell_faults()

"""pith's unittest runner: runs the standard library's `unittest` as `python -m unittest` would,
and streams one JSON record per line to $PITH_REPORT as tests start and end.

pith writes this file into its own cache under a name made from its content's hash and starts
it as `python <this file> [unittest arguments]` with the project's directory as the working
directory. The project is never edited. The person-readable output is unittest's own text (its
TextTestRunner and TextTestResult, at the verbosity the arguments ask for); the records are
written beside it by a TextTestResult subclass, each line straight to the file, so a run that
crashes or hangs still tells what finished and what was running. The exit status is
unittest's own: `unittest.main` decides it (1 when `wasSuccessful()` is false, an unexpected
success included; 5 for no tests on Python 3.12+).

Django (PITH_DJANGO=1): imported as the module `--testrunner` names, `DiscoverRunner` below
runs the suite with the same result class. Under `--parallel`, Django's workers run the tests
and the parent replays their events on that result by name (tracebacks pickled through tblib):
pith's worker result adds a `pithPrinted` event before each failing outcome, with what its
test printed.

Records (one JSON object per line, key "e" names the kind):
  {"e": "selected", "n": test cases the suite holds}
  {"e": "start", "id": test id, "file": absolute path of the test's module}
  {"e": "result", "id": test id (a subtest's: "<test id> (<params>)"), "test": the test's id,
   "o": "passed"|"failed"|"error"|"skipped"|"xfail"|"xpass",
   "kind": exception type, "msg": its words, "frames": [[path, line, source], ...],
   "out": a failing outcome's text as unittest's `-b` shows it: its traceback, then what the
   test printed under "Stdout:" and "Stderr:" (its last _OUT_CHARS characters)}
  {"e": "fixture", "id": module or class id, "phase": "setup"|"teardown", "kind", "msg", "frames",
   "out": as a result's, with what was printed since the last test}
  {"e": "load", "id": module name, "kind", "msg", "frames"}: a test module that did not import
  {"e": "unmatched", "ids": [requested ids that name nothing]}
  {"e": "end", "run": testsRun, "ok": wasSuccessful(), "failures", "errors", "skipped",
   "xfail", "xpass"}

What a test prints is kept as it is printed: sys.stdout and sys.stderr are wrapped by a tee that
writes each piece straight through to the stream it stands for (the text, its order and its
buffering stay the stream's own) and keeps the last _OUT_CHARS characters beside it. Under
unittest's own `-b`/`--buffer` nothing is wrapped: unittest's buffer is what the test printed,
and its failure text already holds it. Output written past sys.stdout (to the file descriptor,
by a subprocess) is not kept apart; it stays in the run's output.

On SIGTERM (pith's deadline) the process writes its threads' stacks to
$PITH_REPORT.<pid>.stacks; a fatal error (a segfault) writes them to
$PITH_REPORT.<pid>.fatal.stacks: never to the streams the person reads.
"""

import json
import os
import re
import sys
import traceback
import unittest

try:
    import faulthandler
except ImportError:  # pragma: no cover - in every CPython 3
    faulthandler = None

_REPORT = os.environ.pop("PITH_REPORT", None)
_DJANGO = os.environ.pop("PITH_DJANGO", None) == "1"
_MSG_CHARS = 2000
_CODE_CHARS = 200
_MAX_FRAMES = 30
_OUT_CHARS = 8000
_fd = None
_keep = []


def _cap(text, n):
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _emit(record):
    global _fd
    if not _REPORT:
        return
    try:
        if _fd is None:
            _fd = os.open(_REPORT, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.write(_fd, (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8", "replace"))
    except Exception:
        pass


def _leave_no_trace():
    """Django finds this module through PYTHONPATH: the tests' own subprocesses do not."""
    here = os.path.dirname(os.path.abspath(__file__))
    value = os.environ.get("PYTHONPATH")
    if value is None:
        return
    rest = [p for p in value.split(os.pathsep) if p and os.path.abspath(p) != here]
    if rest:
        os.environ["PYTHONPATH"] = os.pathsep.join(rest)
    else:
        del os.environ["PYTHONPATH"]


def _faults():
    """Stacks go to files beside the report, never to the output a person reads."""
    if not _REPORT or faulthandler is None:
        return
    try:
        f = open("%s.%d.fatal.stacks" % (_REPORT, os.getpid()), "w")
        _keep.append(f)
        if not faulthandler.is_enabled():
            faulthandler.enable(file=f, all_threads=True)
    except Exception:
        pass
    try:
        import signal

        if hasattr(faulthandler, "register") and signal.getsignal(signal.SIGTERM) in (
            signal.SIG_DFL,
            None,
        ):
            g = open("%s.%d.stacks" % (_REPORT, os.getpid()), "w")
            _keep.append(g)
            faulthandler.register(signal.SIGTERM, file=g, all_threads=True, chain=True)
    except Exception:
        pass


def _harness_dirs():
    out = []
    for mod in (unittest, sys.modules.get("importlib")):
        f = getattr(mod, "__file__", None)
        if f:
            out.append(os.path.dirname(os.path.abspath(f)) + os.sep)
    return out


_HARNESS = _harness_dirs()


def _frames(tb):
    """(absolute path, line, source) outermost first, without unittest's and importlib's own."""
    out = []
    for fs in traceback.extract_tb(tb):
        path = fs.filename
        if path and not path.startswith("<"):
            path = os.path.abspath(path)
        if any(path.startswith(d) for d in _HARNESS) or path.startswith("<frozen"):
            continue
        out.append([path, fs.lineno or 0, _cap((fs.line or "").strip(), _CODE_CHARS)])
    if len(out) > _MAX_FRAMES:
        half = _MAX_FRAMES // 2
        out = out[:half] + out[-half:]
    return out


def _detail(exc, tb=None, importing=False):
    kind = type(exc).__name__
    frames = _frames(tb if tb is not None else exc.__traceback__)
    if isinstance(exc, SyntaxError):
        msg = "%s: %s" % (kind, exc.msg) if exc.msg else kind
        if exc.filename and not str(exc.filename).startswith("<") and exc.lineno:
            where = [
                os.path.abspath(exc.filename),
                int(exc.lineno),
                _cap((exc.text or "").strip(), _CODE_CHARS),
            ]
            frames = [where] if importing else frames + [where]
    else:
        try:
            msg = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        except Exception:
            msg = kind
    return {"kind": _cap(kind, 200), "msg": _cap(msg, _MSG_CHARS), "frames": frames}


_DOCTEST_AT = re.compile(r'^File "(.+)", line (\d+), in ', re.M)


def _doctest_frames(message):
    """A doctest's failure names the example that failed (`File "...", line N, in name`): the
    frame to open, not doctest's own machinery."""
    found = _DOCTEST_AT.findall(message)
    if not found:
        return []
    path, line = found[-1]
    try:
        import linecache

        code = _cap(linecache.getline(path, int(line)).strip(), _CODE_CHARS)
    except Exception:
        code = ""
    return [[os.path.abspath(path), int(line), code]]


def _file_of(test):
    try:
        mod = sys.modules.get(type(test).__module__)
        f = getattr(mod, "__file__", None)
        return os.path.abspath(f) if f else None
    except Exception:
        return None


# A test module that does not import: unittest keeps only the traceback's text; the exception
# itself (its frames, a SyntaxError's line) is kept here by the module name it failed under.
_import_errors = {}
_loader_mod = unittest.loader
_make_failed_import_test = getattr(_loader_mod, "_make_failed_import_test", None)
if _make_failed_import_test is not None:

    def _failed_import(name, suiteClass):
        exc = sys.exc_info()[1]
        if exc is not None:
            _import_errors[name] = exc
        return _make_failed_import_test(name, suiteClass)

    _loader_mod._make_failed_import_test = _failed_import


def _holder_phase(description):
    """`setUpClass (pkg.mod.Class)` -> ("setup", "pkg.mod.Class")."""
    name, _, rest = description.partition(" (")
    target = rest.rstrip(")") if rest else description
    phase = "teardown" if name.startswith(("tearDown", "doClassCleanups", "doModuleCleanups")) else "setup"
    return phase, target


def _subtest_id(subtest):
    """A subtest's id. Replayed from a parallel Django worker, its message sentinel (a bare
    `object()`) is a copy, no longer unittest's own, and would read `[<object object at 0x…>]`:
    it is named as unittest names a subtest without a message. unittest's own text is left as
    it prints it."""
    sentinel = getattr(sys.modules.get("unittest.case"), "_subtest_msg_sentinel", None)
    msg = getattr(subtest, "_message", sentinel)
    if sentinel is None or msg is sentinel or type(msg) is not object:
        return subtest.id()
    try:
        subtest._message = sentinel
        return subtest.id()
    finally:
        subtest._message = msg


def _tail(text, n):
    return text if len(text) <= n else text[-n:]


class _Tee(object):
    """Stands for a stream: each write goes straight through to it, and the last _OUT_CHARS
    characters written are kept. Anything else is the stream's own."""

    def __init__(self, stream):
        self._pith_stream = stream
        self._pith_parts = []
        self._pith_size = 0

    def write(self, text):
        n = self._pith_stream.write(text)
        try:
            if isinstance(text, str) and text:
                self._pith_parts.append(text)
                self._pith_size += len(text)
                if self._pith_size > 2 * _OUT_CHARS:
                    kept = _tail("".join(self._pith_parts), _OUT_CHARS)
                    self._pith_parts = [kept]
                    self._pith_size = len(kept)
        except Exception:
            pass
        return n

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def _pith_take(self):
        text = _tail("".join(self._pith_parts), _OUT_CHARS)
        self._pith_parts = []
        self._pith_size = 0
        return text

    def __getattr__(self, name):
        return getattr(self._pith_stream, name)


_STREAMS = ("stdout", "stderr")


def _tee_streams():
    for name in _STREAMS:
        if not isinstance(getattr(sys, name, None), _Tee):
            setattr(sys, name, _Tee(getattr(sys, name)))


def _untee_streams():
    # Only a tee still in place: a stream a test put there and left is the test's business.
    for name in _STREAMS:
        stream = getattr(sys, name, None)
        if isinstance(stream, _Tee):
            setattr(sys, name, stream._pith_stream)


def _printed():
    """(stdout, stderr) printed through the tees since they were last read, and forget it."""
    out = []
    for name in _STREAMS:
        stream = getattr(sys, name, None)
        out.append(stream._pith_take() if isinstance(stream, _Tee) else "")
    return out


class PithResult(unittest.TextTestResult):
    """unittest's own text result, telling pith each outcome as it happens."""

    def startTestRun(self):
        super().startTestRun()
        if not self.buffer:
            # From the start: a class or module fixture prints before any test starts.
            _tee_streams()

    def startTest(self, test):
        super().startTest(test)
        if not self.buffer:
            # A test's own output only, not what was printed before it.
            _tee_streams()
            _printed()
        failed = getattr(unittest.loader, "_FailedTest", None)
        if failed is None or not isinstance(test, failed):
            _emit({"e": "start", "id": test.id(), "file": _file_of(test)})

    def stopTest(self, test):
        super().stopTest(test)
        if not self.buffer:
            _printed()

    def stopTestRun(self):
        super().stopTestRun()
        _untee_streams()

    def pithPrinted(self, test, out, err):
        """What a parallel Django worker's test printed, replayed before its outcome."""
        self._pith_remote = (out, err)

    def _out(self, listed=None):
        """A failing outcome's text as unittest's `-b` shows it: unittest's own text of it
        (under `-b` it holds the output already), then what the tees kept (or a parallel
        worker told)."""
        try:
            text = listed[-1][1] if listed else ""
            remote = getattr(self, "_pith_remote", None)
            self._pith_remote = None
            if remote is not None or not self.buffer:
                printed = remote if remote is not None else _printed()
                for title, part in zip(("Stdout", "Stderr"), printed):
                    if part:
                        if not part.endswith("\n"):
                            part += "\n"
                        text += "\n%s:\n%s" % (title, part)
            return _tail(text, _OUT_CHARS) if text.strip() else None
        except Exception:
            return None

    def _result(self, test, outcome, err=None, parent=None, out=None):
        tid = _subtest_id(test) if parent is not None else test.id()
        record = {"e": "result", "id": tid, "test": (parent or test).id(), "o": outcome}
        if out:
            record["out"] = out
        if err is not None:
            try:
                record.update(_detail(err[1], err[2]))
                doctest = sys.modules.get("doctest")
                if doctest is not None and isinstance(test, doctest.DocTestCase):
                    record["frames"] = _doctest_frames(str(err[1])) or record["frames"]
            except Exception:
                pass
        _emit(record)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._result(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._result(test, "failed", err, out=self._out(self.failures))

    def addError(self, test, err):
        super().addError(test, err)
        holder = getattr(unittest.suite, "_ErrorHolder", None)
        failed = getattr(unittest.loader, "_FailedTest", None)
        if holder is not None and isinstance(test, holder):
            phase, target = _holder_phase(test.description)
            record = {"e": "fixture", "id": target, "phase": phase}
            record.update(_detail(err[1], err[2]))
            out = self._out(self.errors)
            if out:
                record["out"] = out
            _emit(record)
        elif failed is not None and isinstance(test, failed):
            name = test._testMethodName
            exc = _import_errors.get(name)
            record = {"e": "load", "id": name}
            if exc is not None:
                record.update(_detail(exc, importing=True))
            else:
                record.update(_detail(err[1], err[2], importing=True))
            _emit(record)
        else:
            self._result(test, "error", err, out=self._out(self.errors))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._result(test, "skipped")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._result(test, "xfail")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._result(test, "xpass", out=self._out())

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failure = issubclass(err[0], test.failureException)
            listed = self.failures if failure else self.errors
            self._result(subtest, "failed" if failure else "error", err, parent=test,
                         out=self._out(listed))


def _tell_end(result):
    _emit(
        {
            "e": "end",
            "run": result.testsRun,
            "ok": bool(result.wasSuccessful()),
            "failures": len(result.failures),
            "errors": len(result.errors),
            "skipped": len(result.skipped),
            "xfail": len(result.expectedFailures),
            "xpass": len(result.unexpectedSuccesses),
        }
    )


class PithRunner(unittest.TextTestRunner):
    resultclass = PithResult

    def run(self, test):
        try:
            _emit({"e": "selected", "n": test.countTestCases()})
        except Exception:
            pass
        result = super().run(test)
        _tell_end(result)
        return result


def _by_name(names):
    """Each requested name loaded as `python -m unittest <name>` loads it: (loaded, missing,
    other). `loaded` pairs a name with its suite; `missing` names nothing (a module that does
    not exist, an attribute a module lacks: unittest would run each as an error); `other` is
    not a test by its name (a doctest's id is its function's)."""
    loader = unittest.TestLoader()
    loaded, missing, other = [], [], []
    for name in names:
        try:
            suite = loader.loadTestsFromName(name)
        except (AttributeError, ImportError):
            missing.append(name)
            continue
        except Exception:
            other.append(name)
            continue
        tests = list(_flatten(suite))
        failed = getattr(unittest.loader, "_FailedTest", None)
        if (
            len(tests) == 1
            and failed is not None
            and isinstance(tests[0], failed)
            and _names_nothing(tests[0], name)
        ):
            missing.append(name)
        else:
            loaded.append((name, suite))
    return loaded, missing, other


def _unmatched(names):
    loaded, missing, other = _by_name(names)
    return [n for n, _ in loaded] + other, missing


def _discovered(names, args):
    """Tests of the declared discovery (else unittest's default) whose ids are `names` or lie
    under them, per name."""
    start, pattern, top = _discovery_of(args)
    found = dict((n, []) for n in names)
    try:
        suite = unittest.TestLoader().discover(start, pattern, top)
    except Exception:
        return found
    for test in _flatten(suite):
        tid = test.id()
        for n in names:
            if tid == n or tid.startswith(n + "."):
                found[n].append(test)
    return found


def _names_nothing(test, name):
    exc = _import_errors.get(test._testMethodName) or getattr(test, "_exception", None)
    if isinstance(exc, AttributeError):
        return True
    missing = getattr(exc, "name", None)
    return isinstance(exc, ImportError) and bool(missing) and (name + ".").startswith(missing + ".")


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            for x in _flatten(t):
                yield x
        else:
            yield t


# The options of `python -m unittest` that still mean the same with test names given.
_FLAGS = ("-v", "-q", "-b", "-f", "-c", "--verbose", "--quiet", "--buffer", "--failfast",
          "--catch", "--locals")


def _discovery_of(args):
    """(start, pattern, top) of a declared `discover` (`-s`/`-p`/`-t` or positional), else of
    `python -m unittest` alone."""
    if not args or args[0] != "discover":
        return ".", "test*.py", None
    opts = {}
    rest = []
    i = 1
    while i < len(args):
        a = args[i]
        if a in ("-s", "--start-directory", "-t", "--top-level-directory", "-p", "--pattern"):
            opts[a.lstrip("-")[0]] = args[i + 1] if i + 1 < len(args) else ""
            i += 2
            continue
        if not a.startswith("-"):
            rest.append(a)
        i += 1
    start = opts.get("s") or (rest[0] if rest else ".")
    pattern = opts.get("p") or (rest[1] if len(rest) > 1 else "test*.py")
    top = opts.get("t") or (rest[2] if len(rest) > 2 else None)
    return start, pattern, top


def _top_of(args):
    """The directory a declared `discover` imports tests from (`-t`, else `-s`), which test
    names given instead of discovery must be importable from."""
    if not args or args[0] != "discover":
        return None
    start, _, top = _discovery_of(args)
    return top or start


class _Program(unittest.TestProgram):
    """unittest's own program (its options, its runner, its exit status) over a suite pith
    loaded by name."""

    suite = None

    def createTests(self, *args, **kwargs):
        self.test = self.suite

    def _do_discovery(self, *args, **kwargs):
        # Given no names, unittest would discover: the suite is already there.
        self.test = self.suite


def main(argv):
    # As `python -m unittest` sets it: the working directory first, by its full path.
    sys.path[0] = os.getcwd()
    names = [a for a in argv if a.startswith("pith-id:")]
    args = [a for a in argv if not a.startswith("pith-id:")]
    if names:
        # A subtest's id re-runs its test: unittest runs subtests only together.
        wanted = []
        for n in names:
            base = n[len("pith-id:"):].split(" ", 1)[0]
            if base not in wanted:
                wanted.append(base)
        top = _top_of(args)
        if top:
            sys.path.insert(0, os.path.abspath(top))
        loaded, missing, other = _by_name(wanted)
        suite = unittest.TestSuite()
        for _, tests in loaded:
            suite.addTests(tests)
        if other:
            for name, tests in _discovered(other, args).items():
                if tests:
                    suite.addTests(tests)
                else:
                    missing.append(name)
        if missing:
            _emit({"e": "unmatched", "ids": missing})
        if not suite.countTestCases():
            _emit({"e": "end", "run": 0, "ok": True, "failures": 0, "errors": 0,
                   "skipped": 0, "xfail": 0, "xpass": 0})
            sys.exit(0)
        sys.argv[0] = "python -m unittest"
        _Program.suite = suite
        _Program(module=None, argv=["python -m unittest"] + [a for a in args if a in _FLAGS],
                 testRunner=PithRunner)
        return
    sys.argv[0] = "python -m unittest"
    unittest.main(module=None, argv=["python -m unittest"] + args, testRunner=PithRunner)


def _django_classes():
    """Django's runner with pith's result class, and for `--parallel` a suite whose workers'
    results also tell, before each failing outcome, what its test printed. The classes are
    this module's by name (a spawned worker unpickles the runner class by its name)."""
    from django.test import runner as _dj

    class DiscoverRunner(_dj.DiscoverRunner):
        """Django's own runner, with pith's result class and its records."""

        def get_resultclass(self):
            return PithResult

        def build_suite(self, test_labels=None, *args, **kwargs):
            # pith passes labels only to re-run its own ids: one naming nothing is told apart
            # (and no label left must not mean "discover everything").
            if test_labels:
                keep, missing = _unmatched(list(test_labels))
                if missing:
                    _emit({"e": "unmatched", "ids": missing})
                if not keep:
                    return self.test_suite()
                test_labels = keep
            return super().build_suite(test_labels, *args, **kwargs)

        def run_suite(self, suite, **kwargs):
            try:
                _emit({"e": "selected", "n": suite.countTestCases()})
            except Exception:
                pass
            result = super().run_suite(suite, **kwargs)
            _tell_end(result)
            return result

    class PithRemoteResult(_dj.RemoteTestResult):
        """A worker's result: Django's, plus a `pithPrinted` event before each failing
        outcome (Django replays events by name on the parent's result)."""

        def startTest(self, test):
            super().startTest(test)
            if not self.buffer:
                _tee_streams()
                _printed()

        def _pith_tell(self):
            try:
                if self.buffer:
                    out = [getattr(self, b).getvalue() if getattr(self, b, None) else ""
                           for b in ("_stdout_buffer", "_stderr_buffer")]
                else:
                    out = _printed()
                if out[0] or out[1]:
                    self.events.append(("pithPrinted", self.test_index, out[0], out[1]))
            except Exception:
                pass

        def addError(self, test, err):
            self._pith_tell()
            super().addError(test, err)

        def addFailure(self, test, err):
            self._pith_tell()
            super().addFailure(test, err)

        def addSubTest(self, test, subtest, err):
            if err is not None:
                self._pith_tell()
            super().addSubTest(test, subtest, err)

        def addUnexpectedSuccess(self, test):
            self._pith_tell()
            super().addUnexpectedSuccess(test)

    class PithRemoteRunner(_dj.RemoteTestRunner):
        resultclass = PithRemoteResult

    parallel = getattr(DiscoverRunner, "parallel_test_suite", None)
    if parallel is not None and getattr(parallel, "runner_class", None) is _dj.RemoteTestRunner:

        class PithParallelSuite(parallel):
            runner_class = PithRemoteRunner

        DiscoverRunner.parallel_test_suite = PithParallelSuite
    else:
        PithParallelSuite = None
    classes = (DiscoverRunner, PithParallelSuite, PithRemoteRunner, PithRemoteResult)
    for cls in classes:
        if cls is not None:
            cls.__qualname__ = cls.__name__
    return classes


if _REPORT:
    _faults()
if _DJANGO:
    _leave_no_trace()
if _DJANGO or __name__ != "__main__":
    # Imported by name: as Django's `--testrunner`, or in a spawned `--parallel` worker.
    try:
        DiscoverRunner, PithParallelSuite, PithRemoteRunner, PithRemoteResult = _django_classes()
    except ImportError:
        if _DJANGO:
            raise

if __name__ == "__main__":
    main(sys.argv[1:])

# The guest side of the job protocol. New compiles it once into the module
# _swarmwage_boot, which `python -S -B -i -c "import _swarmwage_boot"` runs
# (see bootstrap.go). It sets the interpreter up and leaves the function
# that runs the job in __main__ as _swarmwage_run; then, -i, CPython's
# interactive loop blocks reading a line from stdin, which the host answers
# with "_swarmwage_run()\n" once it has the job. _swarmwage_run reads 8
# bytes of little-endian code length, the code (UTF-8), and after it comes
# the job's own stdin. Everything before that first read is paid once, in
# the snapshot every instance starts from (snapshot.go), or while the
# interpreter waits in the pool.
#
# The wait is in the interactive loop, not in a read of this code, so that
# no Python frame is on the wasm stack there: the functions on that stack
# are the ones Asyncify instruments for the snapshot (python/refresh.sh),
# and an instrumented bytecode loop made CPU-bound Python ~1.3x slower.
def _boot():
    import posix, sys, time, select, builtins, atexit

    # No host environment reaches the guest; PYTHONHOME, which points
    # CPython at the in-memory standard library, goes too.
    posix.unsetenv("PYTHONHOME")
    posix.environ.clear()
    sys.path[:] = ["/python/lib/python%d.%d" % sys.version_info[:2]]
    sys.modules.pop("_swarmwage_boot", None)
    # CPython 3.11 lowers the default to 600 on WASI for its 512 KiB C
    # stack; Python-to-Python calls do not use the C stack in 3.11, and a
    # C recursion past the stack traps (the stack comes first in memory),
    # which ends the job, not the host. 1000 is CPython's usual default.
    sys.setrecursionlimit(1000)

    # CPython's sleep asks WASI for an absolute-deadline clock wait, which
    # wazero refuses; select with a relative timeout reaches the host's
    # sleep, which the job's timeout cuts short.
    _select = select.select

    def sleep(secs):
        if secs != secs or secs < 0:
            raise ValueError("sleep length must be non-negative")
        _select([], [], [], secs)

    time.sleep = sleep

    # -S skips site, which is where exit() and quit() come from.
    def exit(code=None):
        raise SystemExit(code)

    builtins.exit = builtins.quit = exit

    def read(n):
        parts = []
        while n:
            b = posix.read(0, n)
            if not b:
                posix._exit(70)  # the host went away before sending a job
            parts.append(b)
            n -= len(b)
        return b"".join(parts)

    def run():
        # Taken before the job runs: a job that replaces posix._exit still
        # ends here, and the interactive loop never reads another line.
        _exit = posix._exit
        try:
            # The prompts were for the interactive loop's read, which is over.
            del sys.ps1, sys.ps2
            _run(read(int.from_bytes(read(8), "little")).decode("utf-8"), _exit)
        finally:
            _exit(70)  # only if the job could not be read: _run exits

    # The interactive loop prints sys.ps1 before it reads: nothing.
    sys.ps1 = sys.ps2 = ""
    sys.modules["__main__"].__dict__["_swarmwage_run"] = run


def _run(src, _exit):
    import sys, builtins, atexit

    main = type(sys)("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    rc = 0
    try:
        exec(src, main.__dict__)
    except SystemExit as e:
        rc = _exit_code(e)
    except BaseException as e:
        # Hide this frame: the traceback starts in the job's code.
        e = e.with_traceback(e.__traceback__.tb_next)
        sys.excepthook(type(e), e, e.__traceback__)
        rc = 1
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for f in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            f.flush()
        except BaseException:
            pass
    # _exit skips interpreter finalization, which nobody needs here.
    _exit(rc)


def _exit_code(e):
    import sys

    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except BaseException:
        pass
    return 1


_boot()

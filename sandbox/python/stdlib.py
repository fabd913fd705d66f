"""stdlib.py builds the standard library zip that package sandbox embeds
(python/stdlib.zip): the modules listed in STDLIB below, compiled to .pyc
with unchecked hashes (the guest never looks for sources), in a zip with
sorted names and a fixed timestamp, so the same sources and the same
build Python give the same bytes. refresh.sh runs it.

Usage: python3 stdlib.py LIBDIR SYSCONFIGDATA OUT.zip WORKDIR

WORKDIR, where the build ran, is replaced by /build in SYSCONFIGDATA
(which records the build's paths), so the zip does not depend on it.
"""
import importlib.util
import os
import py_compile
import sys
import tempfile
import zipfile

# Top-level modules and packages of the standard library the guest gets:
# the pure-Python library less what cannot work without files, sockets,
# threads or a terminal (idlelib, tkinter, turtle, ensurepip, venv,
# lib2to3, distutils, multiprocessing, ctypes, curses) and the test suites.
STDLIB = """
__future__ __hello__ __phello__ _collections_abc _compat_pickle _compression
_markupbase _py_abc _pydecimal _pyio _sitebuiltins _strptime _threading_local
_weakrefset abc aifc argparse ast asyncio base64 bdb bisect bz2 cProfile
calendar cgi cgitb chunk cmd code codecs codeop collections colorsys
compileall concurrent configparser contextlib contextvars copy copyreg crypt
csv dataclasses datetime dbm decimal difflib dis doctest email encodings enum
filecmp fileinput fnmatch fractions ftplib functools genericpath getopt
getpass gettext glob graphlib gzip hashlib heapq hmac html http imaplib
imghdr importlib inspect io ipaddress json keyword linecache locale logging
lzma mailbox mailcap mimetypes modulefinder netrc nntplib ntpath nturl2path
numbers opcode operator optparse os pathlib pdb pickle pickletools pipes
pkgutil platform plistlib poplib posixpath pprint profile pstats pty
py_compile pyclbr pydoc queue quopri random re reprlib runpy sched secrets
selectors shelve shlex shutil signal site smtplib sndhdr socket socketserver
sqlite3 sre_compile sre_constants sre_parse stat statistics string stringprep
struct subprocess sunau symtable sysconfig tabnanny tarfile telnetlib
tempfile textwrap this threading timeit token tokenize tomllib trace
traceback tracemalloc tty types typing unittest urllib uuid warnings wave
weakref wsgiref xml xmlrpc zipapp zipfile zipimport zoneinfo
""".split()

# Test suites inside the packages above.
SKIP_DIRS = {"test", "tests", "idle_test", "__pycache__"}

EPOCH = (1980, 1, 1, 0, 0, 0)


def sources(libdir):
    for name in STDLIB:
        path = os.path.join(libdir, name)
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                for f in sorted(files):
                    if f.endswith(".py"):
                        full = os.path.join(root, f)
                        yield full, os.path.relpath(full, libdir)
        elif os.path.isfile(path + ".py"):
            yield path + ".py", name + ".py"
        else:
            sys.exit(f"stdlib.py: {name} is not in {libdir}")


def main():
    libdir, sysconfigdata, out, workdir = sys.argv[1:5]
    files = list(sources(libdir))
    home = "/python/lib/python%d.%d/" % sys.version_info[:2]
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(sysconfigdata) as f:
            text = f.read().replace(workdir.rstrip("/"), "/build")
        clean = os.path.join(tmp, os.path.basename(sysconfigdata))
        with open(clean, "w") as f:
            f.write(text)
        files.append((clean, os.path.basename(sysconfigdata)))
        for src, rel in files:
            pyc = os.path.join(tmp, "x.pyc")
            # dfile: tracebacks name the module's path in the guest.
            py_compile.compile(src, cfile=pyc, dfile=home + rel, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            with open(pyc, "rb") as f:
                entries.append((rel[:-3] + ".pyc", f.read()))
    entries.sort()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data, compresslevel=9)
    print(f"stdlib.py: {len(entries)} modules, magic {importlib.util.MAGIC_NUMBER.hex()}")


if __name__ == "__main__":
    main()

"""Where a benchmark's report goes, and what heads it.

Every benchmark script prints its table and writes the same table to
docs/benchmarks/NAME-DATE.md (--report FILE elsewhere, --no-report not at
all), headed by the date, the machine (host, CPU, cores), the commit of the
sources and the command that ran: a report says when, where and on what it
was measured, and the README quotes the latest one's summary.
"""
import datetime
import os
import platform
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORTS = os.path.join(ROOT, "docs", "benchmarks")


def machine():
    """Host name, CPU model and core count."""
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %s, %d cores" % (platform.node(), cpu, os.cpu_count() or 0)


def commit(path=ROOT, length=7):
    """The commit checked out at \\p path, marked when the tree has
    uncommitted changes (then the figures are not those of the commit)."""
    def git(*a):
        return subprocess.run(["git", "-C", path] + list(a),
                              capture_output=True, text=True).stdout.strip()
    # A corpus root from utils/corpus-extract.sh names its source.
    recorded = os.path.join(path, ".kv-corpus")
    if os.path.exists(recorded):
        with open(recorded) as f:
            repo, sha = f.read().split()[:2]
        return "%s %s" % (repo, sha[:length])
    try:
        head = git("rev-parse", "--short=%d" % length, "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except OSError:
        return "not a git checkout"
    if not head:
        return "not a git checkout"
    return head + (" with uncommitted changes" if dirty else "")


def add_args(ap, name):
    """--report FILE and --no-report; the default is
    docs/benchmarks/NAME-YYYY-MM-DD.md."""
    ap.add_argument("--report", metavar="FILE",
                    help="write the report here (default: "
                         "docs/benchmarks/%s-DATE.md)" % name)
    ap.add_argument("--no-report", action="store_true",
                    help="print the table only")
    ap.set_defaults(report_name=name)


def path(args, when=None):
    """The report's file, or None with --no-report."""
    if args.no_report:
        return None
    if args.report:
        return args.report
    when = when or datetime.datetime.now(datetime.timezone.utc)
    return os.path.join(REPORTS, "%s-%s.md" % (args.report_name,
                                               when.strftime("%Y-%m-%d")))


def header(title, when=None):
    """The report's first lines: title, date, machine, commit, command."""
    when = when or datetime.datetime.now(datetime.timezone.utc)
    cmd = " ".join(shlex.quote(a) for a in
                   [os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
    return ["# " + title, "",
            "%s UTC on %s; sources at %s." % (when.strftime("%Y-%m-%d %H:%M"),
                                             machine(), commit()),
            "`%s`" % cmd, ""]


def write(args, lines, when=None):
    """Writes \\p lines to the report's file (unless --no-report) and says
    where."""
    p = path(args, when)
    if not p:
        return
    os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
    with open(p, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")
    print("report written to %s" % os.path.relpath(p), flush=True)


def printed(args, title, table):
    """Runs \p table(args), a script's table printed as it goes, under
    the report's header; the report is what it printed, in a fenced block.
    Returns what \p table returned."""
    head = header(title)
    print("\n".join(head), flush=True)
    with Tee() as tee:
        rc = table(args)
    write(args, head + ["```"] + tee.lines + ["```"])
    return rc


class Tee:
    """Keeps what a script prints, for a script whose report is its output:
    with Tee() as t: ...; then write(args, t.lines)."""

    def __init__(self, lines=None):
        self.lines = list(lines or [])
        self._buf = ""

    def write(self, s):
        self._out.write(s)
        self._buf += s
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            self.lines.append(line)

    def flush(self):
        self._out.flush()

    def __enter__(self):
        self._out = sys.stdout
        sys.stdout = self
        return self

    def __exit__(self, *exc):
        sys.stdout = self._out
        if self._buf:
            self.lines.append(self._buf)
        return False

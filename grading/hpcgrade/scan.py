"""A lexical look at the student's files before anything is built.

Two lists. Tampering (scored 0, with the reason): redefining GoogleTest's
macros or entering its namespace (a student header is compiled into the test
files), or naming the harness's control channels (the JSON report path, the
premature-exit file): no lab needs these, and code in the test process could
otherwise forge what the grader reads. Review flags (no effect on the score,
listed for a human): process, signal, network and /proc calls a lab does not
need. Neither list is the defence: the sandbox and the report checks are; this
only says out loud what a submission tried.
"""
import re

TAMPER = [
    (re.compile(r"#\s*(define|undef)\s+(EXPECT_|ASSERT_|TEST|GTEST|FAIL\b|SUCCEED|ADD_FAILURE|INSTANTIATE_|testing\b)"),
     "redefines a GoogleTest macro"),
    (re.compile(r"\bnamespace\s+testing\b|\btesting\s*::\s*internal\b|\bUnitTest\s*::\s*GetInstance"),
     "reaches into GoogleTest's internals"),
    (re.compile(r"TEST_PREMATURE_EXIT_FILE|GTEST_OUTPUT|gtest_output|XML_OUTPUT_FILE|GTEST_FLAG"),
     "refers to the test harness's report or premature-exit file"),
]

REVIEW = [
    (re.compile(r"\b(fork|vfork|execv[pe]?|execl[pe]?|system|popen|posix_spawn[p]?)\s*\("), "starts processes"),
    (re.compile(r"\b(kill|raise|getppid|setsid|ptrace)\s*\("), "signals or processes"),
    (re.compile(r"(?<![\w.])_?_?exit\s*\(|\bquick_exit\s*\(|\babort\s*\("), "exits the program"),
    (re.compile(r"\b(socket|connect|bind|getaddrinfo)\s*\("), "uses the network"),
    (re.compile(r"/proc/|/dev/|\b(unlink|rename|remove|rmdir|chdir)\s*\("), "touches files outside its data"),
    (re.compile(r"solutions/|grading/|__has_include|#\s*include\s*[\"<]/"), "includes or reads unusual paths"),
]


def strip_comments(text):
    """Remove // and /* */ comments, keeping line numbers (naive about
    comment markers inside string literals, which is fine for a report)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def scan(files):
    """FILES: {relative name: text}. Returns (tamper, review), each a list of
    'file:line: what: code' strings."""
    tamper, review = [], []
    for name in sorted(files):
        for no, line in enumerate(strip_comments(files[name]).splitlines(), 1):
            for rx, what in TAMPER:
                if rx.search(line):
                    tamper.append("%s:%d: %s: %s" % (name, no, what, line.strip()[:120]))
            for rx, what in REVIEW:
                if rx.search(line):
                    review.append("%s:%d: %s: %s" % (name, no, what, line.strip()[:120]))
    return tamper, review

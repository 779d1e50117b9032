"""A lexical look at the student's files before anything is built: a
report for a human, never a score.

The defence is elsewhere: verdicts come from a judge process that loads no
student code (judging.py), timings from the grader's own clock (timing.py),
and the sandbox holds what the code can reach (sandbox.py). This only says
out loud what a submission's files use that no lab needs: GoogleTest's
internals and the grader's channels, processes, signals, exits, the network,
unusual paths.
"""
import re

TAMPER = [
    (re.compile(r"#\s*(define|undef)\s+(EXPECT_|ASSERT_|TEST|GTEST|FAIL\b|SUCCEED|ADD_FAILURE|INSTANTIATE_|testing\b)"),
     "redefines a GoogleTest macro"),
    (re.compile(r"\bnamespace\s+testing\b|\btesting\s*::\s*internal\b|\bUnitTest\s*::\s*GetInstance"),
     "reaches into GoogleTest's internals"),
    (re.compile(r"TEST_PREMATURE_EXIT_FILE|GTEST_OUTPUT|gtest_output|XML_OUTPUT_FILE|GTEST_FLAG|HPCLAB_JUDGE|"
                r"HPCLAB_SEED|judged::|--serve"),
     "refers to the test harness's report or the grader's channels"),
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


def review(files):
    """FILES: {relative name: text}. Returns 'file:line: what: code' strings."""
    found = []
    for name in sorted(files):
        for no, line in enumerate(strip_comments(files[name]).splitlines(), 1):
            for rx, what in TAMPER + REVIEW:
                if rx.search(line):
                    found.append("%s:%d: %s: %s" % (name, no, what, line.strip()[:120]))
    return found

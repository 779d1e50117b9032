"""Written answers: labs/LAB/student/answers.md, graded by a person.

The starter's answers.md holds the lab's questions, one block each:

    ## Q1 (2 points) Does it matter where operator() is defined?

    (your answer)

The questions and their points are read from the starter (the repository's
copy), never from the submission, so a submission cannot change what is
asked or what it is worth; the submission's file gives only the text under
each heading. The grader scores none of it: each question becomes an item
worth 0 points in results.json, whose output is the student's answer, so
that a TA sees it next to the scores, and extra_data["written"] lists the
questions with their points for whoever grades them (a TA on Gradescope's
manual questions, or a class sheet).
"""
import re
from dataclasses import dataclass

FILE = "answers.md"
PLACEHOLDER = "(your answer)"
HEADING = re.compile(r"^## Q(\d+) \((\d+(?:\.\d+)?) points?\) (.+?)\s*$")
MAX_ANSWER = 20000


@dataclass
class Question:
    number: int
    points: float
    prompt: str
    answer: str = ""

    @property
    def answered(self):
        return bool(self.answer) and self.answer != PLACEHOLDER


def parse(text):
    """Pure: the questions of an answers.md, each with the text under its
    heading (stripped; the placeholder counts as no answer). Raises
    ValueError for a file with no question or a number used twice."""
    questions, current, body = [], None, []

    def close():
        if current is not None:
            current.answer = "\n".join(body).strip()[:MAX_ANSWER]

    for line in text.splitlines():
        m = HEADING.match(line)
        if m:
            close()
            current, body = Question(int(m.group(1)), float(m.group(2)), m.group(3)), []
            if any(q.number == current.number for q in questions):
                raise ValueError("question Q%d appears twice" % current.number)
            questions.append(current)
        elif current is not None:
            body.append(line)
    close()
    if not questions:
        raise ValueError("no question heading of the form '## Q1 (2 points) ...'")
    return questions


def answers_of(submission_text):
    """Pure: {question number: answer} from a submission's answers.md, which
    may be anything (missing headings and extra text are the student's
    business: an answer is what stands under its own question's heading)."""
    if submission_text is None:
        return {}
    found, current, body = {}, None, []
    for line in submission_text.splitlines():
        m = re.match(r"^## Q(\d+)\b", line)
        if m:
            if current is not None and current not in found:
                found[current] = "\n".join(body).strip()[:MAX_ANSWER]
            current, body = int(m.group(1)), []
        elif current is not None:
            body.append(line)
    if current is not None and current not in found:
        found[current] = "\n".join(body).strip()[:MAX_ANSWER]
    return found


def merge(starter_text, submission_text):
    """Pure: the starter's questions, each with the submission's answer."""
    questions = parse(starter_text)
    given = answers_of(submission_text)
    for q in questions:
        q.answer = given.get(q.number, "")
    return questions


def describe(q):
    """The item's output: the question, then the answer as written."""
    return "%s\n\nanswer: %s" % (q.prompt, q.answer if q.answered else "(none yet)")


def _fmt(x):
    return ("%.2f" % x).rstrip("0").rstrip(".")

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
manual questions, or a class sheet). The output's first line, which the
table shows, is the answer's state: no answers.md in the submission,
unanswered, or answered (N words) with the answer's opening words, so
that a student sees in the self-grade whether the file was found and read.
"""
import re
from dataclasses import dataclass

FILE = "answers.md"
PLACEHOLDER = "(your answer)"
HEADING = re.compile(r"^## Q(\d+) \((\d+(?:\.\d+)?) points?\) (.+?)\s*$")
ANY_HEADING = re.compile(r"^## Q(\d+)\b")
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


def sections(text, heading):
    """Pure: (match, body) for each line of TEXT that HEADING (a compiled
    regex) matches, the body being the stripped, bounded text up to the next
    such line; text before the first heading is ignored."""
    found, match, body = [], None, []
    for line in text.splitlines():
        m = heading.match(line)
        if m:
            if match is not None:
                found.append((match, "\n".join(body).strip()[:MAX_ANSWER]))
            match, body = m, []
        elif match is not None:
            body.append(line)
    if match is not None:
        found.append((match, "\n".join(body).strip()[:MAX_ANSWER]))
    return found


def parse(text):
    """Pure: the questions of an answers.md, each with the text under its
    heading (the placeholder counts as no answer). Raises ValueError for a
    file with no question or a number used twice."""
    questions = []
    for m, body in sections(text, HEADING):
        q = Question(int(m.group(1)), float(m.group(2)), m.group(3), body)
        if any(p.number == q.number for p in questions):
            raise ValueError("question Q%d appears twice" % q.number)
        questions.append(q)
    if not questions:
        raise ValueError("no question heading of the form '## Q1 (2 points) ...'")
    return questions


def answers_of(submission_text):
    """Pure: {question number: answer} from a submission's answers.md, which
    may be anything (missing headings and extra text are the student's
    business: an answer is what stands under its own question's heading;
    the first one counts)."""
    found = {}
    for m, body in sections(submission_text or "", ANY_HEADING):
        found.setdefault(int(m.group(1)), body)
    return found


def merge(starter_text, submission_text):
    """Pure: the starter's questions, each with the submission's answer."""
    questions = parse(starter_text)
    given = answers_of(submission_text)
    for q in questions:
        q.answer = given.get(q.number, "")
    return questions


EXCERPT = 160


def words(text):
    return len(text.split())


def state(q, file_found=True):
    """Pure: one line: 'no answers.md in the submission', 'unanswered', or
    'answered, 57 words: "The opening words ..."'."""
    if not file_found:
        return "no %s in the submission" % FILE
    if not q.answered:
        return "unanswered"
    flat = " ".join(q.answer.split())
    opening = flat if len(flat) <= EXCERPT else flat[:EXCERPT].rsplit(" ", 1)[0] + " ..."
    n = words(q.answer)
    return 'answered, %d word%s: "%s"' % (n, "" if n == 1 else "s", opening)


def describe(q, file_found=True):
    """The item's output: the answer's state, the question, then the answer
    as written."""
    return "%s\n\nquestion: %s\n\nanswer: %s" % (state(q, file_found), q.prompt,
                                                 q.answer if q.answered else "(none yet)")

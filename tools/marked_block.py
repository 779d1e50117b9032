"""A block of a Markdown file that a tool writes between two marker comments
(a handout's "How you are graded", the README's lab table): one function, so
that every generated block is found and replaced the same way."""


def replace(text, begin, end, new):
    """Pure: TEXT with everything from BEGIN to END (both included) replaced
    by NEW, or None when the markers are missing or out of order."""
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        return None
    return text[:i] + new + text[j + len(end):]

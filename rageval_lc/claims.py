"""What is a claim (SPEC §6): a sentence that states something about the world. Headings, list markers, code,
greetings, sign-offs, meta sentences ("Here is how:") and hedges or refusals ("I don't know.", "I do not have
information about X") make no claim: they are neither supported nor unsupported, and no support metric counts them.

Decided here once, for every judge and metric that reads sentence support. A sentence copied from a passage is a
claim whatever its form: :func:`claim_free_kind` is asked only of the answer's own sentences.

Example:
    >>> claim_free_kind("## Installation"), claim_free_kind("I don't know."), claim_free_kind("Paris is big.")
    ('heading', 'refusal', None)
    >>> is_empty_answer("  \\n ")
    True
"""

from __future__ import annotations

import re

__all__ = ["CLAIM_FREE_KINDS", "claim_free_kind", "is_claim", "is_empty_answer"]

#: The kinds of sentence that make no claim, with what the explanation calls them.
CLAIM_FREE_KINDS: dict[str, str] = {
    "empty": "nothing but punctuation or list marks",
    "heading": "a heading",
    "code": "code",
    "greeting": "a greeting or sign-off",
    "meta": "a sentence about the answer itself",
    "refusal": "a hedge or refusal",
}

_MARKS = re.compile(r"^\s*(?:[-*•+>#]+|\d{1,2}[.)]|[a-zA-Z][.)](?=\s))\s*")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+\S.*|\*\*[^*]{1,80}\*\*:?|__[^_]{1,80}__:?)\s*$")
_CODE = re.compile(r"^\s*(?:```|~~~|\$ |>>> |[A-Za-z_][\w.]*\(.*\)\s*;?\s*$|[{}\[\]();]+\s*$)")
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear \w+|thanks?(?: you)?(?: for [^.!]*)?|thank you[^.!]*|you'?re welcome|"
    r"(?:best|kind) regards|cheers|good luck|hope (?:this|that) helps[^.!]*|i hope (?:this|that) helps[^.!]*|"
    r"let me know if[^.!]*|feel free to [^.!]*|(?:please )?don'?t hesitate to [^.!]*|happy to help[^.!]*|"
    r"sure|certainly|of course|great question)\s*[.!,:]*\s*$",
    re.I,
)
_META = re.compile(
    r"^\s*(?:here(?:'s| is| are)\b[^.!?]{0,60}|(?:the )?(?:steps|answer|summary|details|instructions|options)"
    r"(?: are| is)?(?: as follows)?|(?:to (?:do|answer) (?:this|that)[^.!?]{0,40})|in summary|to summarize|in short|"
    r"for example|such as|as follows|(?:the )?following(?: steps)?(?: are)?)\s*[:.]?\s*$",
    re.I,
)
_REFUSAL = re.compile(
    r"(?:^|\b)(?:i (?:do not|don'?t|cannot|can'?t|am (?:not|unable)|'m (?:not|unable)) (?:know|have|find|see|"
    r"answer|determine|provide|sure|able)|(?:i'?m|i am) sorry|unfortunately,? (?:i|the (?:context|documents?|"
    r"passages?|information)|there is no)|"
    r"(?:the )?(?:provided )?(?:context|documents?|passages?|sources?|information)(?: provided)? (?:does|do) not "
    r"(?:contain|provide|mention|specify|say|include|state|give)|(?:there is|there's) (?:no|not enough) "
    r"(?:information|data|mention)|(?:is|are) not (?:mentioned|specified|provided|stated|given|available) in the "
    r"(?:context|documents?|passages?|sources?|information)|(?:no|insufficient) information (?:is )?"
    r"(?:available|provided|given)|cannot be determined|not enough information)",
    re.I,
)


def is_empty_answer(answer: str | None) -> bool:
    """True when the answer is missing or nothing but whitespace (every metric that judges it is undetermined)."""
    return answer is None or not str(answer).strip()


def claim_free_kind(sentence: str) -> str | None:
    """The kind of claim-free sentence this is (a key of :data:`CLAIM_FREE_KINDS`), or None for a claim.

    A refusal or hedge is claim-free only when it is the whole sentence's point: "I don't know when it opened" is,
    "It opened in 1990, but I don't know the month" states a fact and is a claim.

    Example:
        >>> claim_free_kind("Here is how:"), claim_free_kind("1."), claim_free_kind("Hope this helps!")
        ('meta', 'empty', 'greeting')
        >>> claim_free_kind("The context does not mention the tower's height.")
        'refusal'
    """
    text = sentence.strip()
    if _HEADING.match(text):
        return "heading"
    if _CODE.match(text):
        return "code"
    body = _MARKS.sub("", text, count=1).strip()
    if not re.search(r"[A-Za-z0-9]", body):
        return "empty"
    if _GREETING.match(body):
        return "greeting"
    if _META.match(body) or (body.endswith(":") and len(body.split()) <= 8):
        return "meta" if not _HEADING.match(text) else "heading"
    if _REFUSAL.search(body) and not _states_more(body):
        return "refusal"
    return None


def _states_more(body: str) -> bool:
    """A refusal joined to a statement of fact ("It opened in 1990, but I don't know the month")."""
    parts = re.split(r",?\s+\b(?:but|however|although|though)\b\s*,?|;\s*", body, maxsplit=1)
    return len(parts) == 2 and all(len(p.split()) >= 3 for p in parts) and not _REFUSAL.search(parts[0])


def is_claim(sentence: str) -> bool:
    """True when the sentence makes a claim (see :func:`claim_free_kind`).

    Example:
        >>> is_claim("The tower is 330 m tall."), is_claim("**Steps**")
        (True, False)
    """
    return claim_free_kind(sentence) is None

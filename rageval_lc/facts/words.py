"""Words matched across their forms: a light stem ("Australian" and "Australia", "acquired" and "acquires") that
the judge's slots, its contradiction detector and the training twins match words by.

Example:
    >>> stem("capitals"), stem("given"), stem("Australian") == stem("Australia")
    ('capital', 'give', True)
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["STOP_WORDS", "stem"]

#: Words that state nothing of their own: articles, auxiliaries, pronouns, prepositions, modals (the judge's frame
#: words and the twins' edits each add their own to these).
STOP_WORDS = frozenset(
    "a an the of to in on at for and or is are was were be been being by with as it its this that these those "
    "has have had do does did from into than then there their they them he she his her which who what when "
    "where how also very can could would should will shall may might must any".split()
)

#: Irregular past participles and their verbs ("should not be given" negates "give").
_IRREGULAR = dict(
    pair.split(":")
    for pair in (
        "given:give taken:take written:write eaten:eat driven:drive shown:show known:know grown:grow chosen:choose "
        "spoken:speak broken:break forgotten:forget hidden:hide risen:rise fallen:fall frozen:freeze stolen:steal "
        "sold:sell told:tell bought:buy brought:bring thought:think caught:catch taught:teach found:find held:hold "
        "kept:keep lost:lose paid:pay sent:send spent:spend built:build begun:begin drunk:drink worn:wear torn:tear "
        "born:bear drawn:draw thrown:throw flown:fly"
    ).split()
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stem for matching words across forms: lower case, possessive and common suffixes cut.

    Example:
        >>> [stem(w) for w in ("Australian", "Australia", "capitals", "acquired", "acquires")]
        ['austral', 'austral', 'capital', 'acquir', 'acquir']
    """
    word = word.lower().replace("’", "'").removesuffix("'s").strip("'.")
    word = _IRREGULAR.get(word, word)
    for suffix in ("ians", "ian", "ia", "ions", "ion", "ing", "ies", "ied", "es", "ed", "s", "e", "y"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word

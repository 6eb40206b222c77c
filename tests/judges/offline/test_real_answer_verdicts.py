"""Issue 32 (and 43: "contradicted" only for kinds precise to 0.9 on real answers): the rows a new user tried
(answers written the way people and RAG systems write them), each with the verdict and the reason a careful reader
gives; and the detector's rules behind them, as pure text checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rageval_lc.facts.numbers import quantities
from rageval_lc.facts.words import stem
from rageval_lc.judges.offline.contradiction import derived_quantities, evidence_units, find_conflict
from rageval_lc.judges.offline.judge import OfflineJudge
from rageval_lc.judges.offline.model import LocalParams
from rageval_lc.schema import RagSample
from rageval_lc.text import KeyedSentences

#: (question, passages, answer, the verdict of its one sentence, words its reason must hold)
TRIED = [
    (
        "How should I take it?",
        [
            "Take one tablet in the morning and one tablet in the evening, with food. "
            "Do not exceed two tablets in 24 hours."
        ],
        "Take it twice a day, morning and evening, with meals, and no more than two tablets a day.",
        "supported",
        (),
    ),
    (
        "When did the Berlin Wall fall?",
        ["The Berlin Wall fell on 9 November 1989, when East German authorities opened the border crossings."],
        "The Berlin Wall fell on 9 November 1991.",
        "not_found",  # a date conflict is precise to 0.83 on real answers: evidence named, not a verdict
        ("0a disagrees", "says 9 November 1991; 0a says 9 November 1989"),
    ),
    (
        "Is aspirin safe for children?",
        [
            "Aspirin should not be given to children under 16 because of the risk of Reye's syndrome, a rare but "
            "serious condition."
        ],
        "Yes, aspirin is safe to give to children under 16.",
        "contradicted",
        ("Contradicted by 0a", '0a says "not be given"'),
    ),
    (
        "What is the capital of Australia?",
        [
            "Canberra is the capital city of Australia. It was selected as the capital in 1908 as a compromise "
            "between Sydney and Melbourne."
        ],
        "The capital of Australia is Sydney.",
        "not_found",
        ("0a disagrees", "says Sydney; 0a says Canberra"),
    ),
    (
        "Who discovered penicillin?",
        [
            "Penicillin was discovered in 1928 by Alexander Fleming, a Scottish physician and microbiologist, at "
            "St Mary's Hospital in London."
        ],
        "Penicillin was discovered in 1928 by Louis Pasteur.",
        "not_found",
        ("0a disagrees", "says Louis Pasteur; 0a says Alexander Fleming"),
    ),
    (  # the short answer a DSPy program gave
        "When was Northwind Analytics founded and where is it based?",
        [
            "Northwind Analytics was founded in 2012 by two former bank engineers. Its headquarters are in "
            "Toronto, Canada, where about 300 of its staff work.",
            "The company opened a second office in Montreal in 2019.",
        ],
        "Founded in 2012; headquartered in Toronto.",
        "supported",
        ("Supported by 0",),  # 0a (founded) or 0b (headquarters): both hold a half
    ),
]


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge(device="cpu")


MISSED = {
    0: "issue 43: the grounding model reads 'twice a day' against two tablets a day as not found",
    3: "issue 43: the grounding model entails 'the capital is Sydney' (P 0.95) from a passage naming both cities",
}


@pytest.mark.parametrize(
    ("question", "passages", "answer", "verdict", "reason"),
    [
        pytest.param(*row, marks=[pytest.mark.xfail(strict=True, reason=MISSED[i])] if i in MISSED else [])
        for i, row in enumerate(TRIED)
    ],
    ids=lambda v: str(v)[:24],
)
def test_the_rows_a_new_user_tried_get_the_right_verdict_and_reason(
    judge: OfflineJudge, question: str, passages: list[str], answer: str, verdict: str, reason: tuple[str, ...]
) -> None:
    result = judge.trace_labels(RagSample(question=question, contexts=passages, response=answer))
    assert result.notes["sentence_verdicts"] == {"a": verdict}
    (sentence,) = result.value.sentence_support_information
    assert sentence.fully_supported is (verdict == "supported")
    assert result.value.overall_supported is (verdict == "supported")
    for words in reason:
        assert words in sentence.explanation
    if verdict == "supported":
        assert not sentence.explanation.startswith(("Contradicted", "Not found"))
    else:
        assert sentence.supporting_sentence_keys == []  # a contradicted sentence cites nothing in its support


@pytest.mark.xfail(strict=True, reason=MISSED[0])
def test_a_supported_sentence_never_cites_the_text_the_nli_model_reads_against_it(judge: OfflineJudge) -> None:
    """The dosing answer is supported, but the NLI model reads the dosing sentences against it: they are named as
    such, not cited as its support."""
    question, passages, answer, _, _ = TRIED[0]
    result = judge.trace_labels(RagSample(question=question, contexts=passages, response=answer))
    (sentence,) = result.value.sentence_support_information
    assert sentence.supporting_sentence_keys == []
    assert "the NLI model reads 0a and 0b against it (contradiction " in sentence.explanation
    assert "but no number, date, name, negation or role conflicts" in sentence.explanation


# --- the detector's rules behind them: pure text, no model ------------------------------------------------------


def conflict(response: str, *contexts: str):
    keyed = KeyedSentences.from_texts(list(contexts), response)
    return find_conflict(response, evidence_units(keyed.documents))


def test_a_trailing_clause_does_not_hide_a_conflict_with_the_main_one() -> None:
    found = conflict(
        "The treaty was signed in 1648.",
        "The treaty was signed in 1649, after four years of talks in two cities of Westphalia.",
    )
    assert found is not None and (found.kind, found.detail) == ("date", "says 1648; 0a says 1649")
    assert (
        conflict("The treaty was signed in 1649.", "The treaty was signed in 1649, after four years of talks.") is None
    )


def test_a_daily_count_is_never_compared_with_one_dose() -> None:
    (daily,) = quantities("Take no more than four capsules a day.")
    assert (daily.dimension, daily.bound, daily.value) == ("count:capsul/day", "upper", 4.0)
    assert conflict("Take no more than four capsules a day.", "Take two capsules with each meal.") is None
    found = conflict("Take no more than six capsules a day.", "Take no more than four capsules a day.")
    assert found is not None and found.kind == "number"


def test_no_more_than_is_an_upper_bound_and_no_less_than_a_lower_one() -> None:
    bounds = [q.bound for q in quantities("no more than 3 kg, no less than 5 kg, more than 7 kg, less than 9 kg")]
    assert bounds == ["upper", "lower", "lower", "upper"]


@pytest.mark.parametrize(
    ("context", "restatement"),
    [
        ("Of the 12 patients, 3 of the 12 improved within a week.", "A quarter of the patients improved."),
        (
            "The grant gives £59 million for the building and £11 million for the site.",
            "The grant is £70 million in all.",
        ),
        ("Sales rose from 120 units in May to 150 units in June.", "Sales rose by 30 units from May to June."),
        ("Sales were 1,500,000 units in 2021.", "Sales were 1.5 million units in 2021."),
        ("Half of the 40 staff work remotely.", "Half of the staff work remotely."),
        ("Let the dough rest for 30 minutes before baking.", "Let the dough rest for half an hour before baking."),
        ("The flight takes an hour and a half.", "The flight takes 90 minutes."),
    ],
)
def test_a_quantity_worked_out_from_the_passage_is_the_same_fact(context: str, restatement: str) -> None:
    assert conflict(restatement, context) is None


def test_totals_differences_and_shares_are_worked_out_by_hand() -> None:
    worked = {(q.text, round(q.value, 4), q.dimension) for q in derived_quantities("3 of the 12 cats, 5 kg and 2 kg")}
    assert worked == {
        ("3 of the 12", 25.0, "percent"),
        ("5 kg + 2 kg", 7000.0, "mass"),
        ("5 kg − 2 kg", 3000.0, "mass"),
    }


def test_a_figure_that_only_happens_to_equal_a_difference_is_not_worked_out() -> None:
    """£59 million less £11 million is £48 million, but a sentence that speaks of no difference does not mean it."""
    context = "The new wing of the museum cost £59 million, and the museum's old wing cost £11 million."
    found = conflict("The new wing of the museum cost £48 million.", context)
    assert found is not None and found.detail == "says £48 million; 0a says £59 million"
    assert conflict("The new wing of the museum cost £48 million more than the old wing.", context) is None


def test_an_irregular_participle_stems_to_its_verb() -> None:
    assert [stem(w) for w in ("given", "give", "taken", "takes", "sold")] == ["give", "give", "take", "take", "sell"]


def test_a_pronoun_that_stands_for_the_rival_name_clears_nothing() -> None:
    context = "Ottawa is the capital of Canada. It was chosen over Toronto and Montreal by Queen Victoria."
    found = conflict("The capital of Canada is Toronto.", context)
    assert found is not None and found.detail == "says Toronto; 0a says Ottawa"
    assert conflict("The capital of Canada is Ottawa.", context) is None


def test_what_a_passage_says_verbatim_is_never_contradicted() -> None:
    """A numbered step copied from a manual, beside another step with other figures, is no conflict; the same step
    with a figure changed still is."""
    manual = (
        "2. Hold the reset button for 5 seconds until the light blinks twice. "
        "3. Hold the reset button for 15 seconds to restore the factory settings."
    )
    assert conflict("Hold the reset button for 15 seconds to restore the factory settings.", manual) is None
    assert conflict("3. Hold the reset button for 5 seconds until the light blinks twice.", manual) is None
    found = conflict("Hold the reset button for 25 seconds to restore the factory settings.", manual)
    assert found is not None and found.kind == "number"


def test_a_people_named_after_a_place_is_that_place() -> None:
    context = "Iceland had 387,758 people in 2024, according to Statistics Iceland, and two-thirds live near Reykjavík."
    assert conflict("About two-thirds of Icelanders live near Reykjavík.", context) is None


def test_one_value_worded_as_a_bound_on_one_side_is_no_conflict() -> None:
    """ "connects over 2.4 GHz Wi-Fi" reads "over" as "more than"; the same 2.4 GHz is no conflict."""
    context = "The thermostat connects over 2.4 GHz Wi-Fi only; 5 GHz networks are not supported."
    assert conflict("The thermostat only connects to 2.4 GHz Wi-Fi networks.", context) is None


def test_a_conflict_of_a_kind_that_does_not_force_is_evidence_named_in_the_reason(judge: OfflineJudge) -> None:
    """With no kind forcing a verdict (what the calibration chooses when none is precise enough), a date conflict is
    not a "contradicted" verdict: the sentence the support model finds unsupported is "not found", and its reason
    names the conflict and cites nothing that disagrees."""
    weighing = OfflineJudge(
        encoder=judge.encoder.encoder, nli=judge.nli, params=replace(LocalParams.load(), forcing_kinds=[])
    )
    question, passages, answer, _, _ = TRIED[1]
    result = weighing.trace_labels(RagSample(question=question, contexts=passages, response=answer))
    (sentence,) = result.value.sentence_support_information
    assert "contradictions" not in result.notes
    assert "0a disagrees (says 9 November 1991; 0a says 9 November 1989), weighed as evidence" in sentence.explanation
    assert "0a" not in sentence.supporting_sentence_keys
    assert result.notes["sentence_verdicts"] == {"a": "not_found"}  # fitted on twins: it acts on the conflict


def test_a_duration_in_words_that_differs_is_a_conflict() -> None:
    (spoken,) = quantities("Let the dough rest for half an hour.")
    assert (spoken.value, spoken.dimension) == (1800, "time")
    found = conflict(
        "Let the dough rest for 45 minutes before baking.", "Let the dough rest for half an hour before baking."
    )
    assert found is not None and found.detail == "says 45 minutes; 0a says half an hour"

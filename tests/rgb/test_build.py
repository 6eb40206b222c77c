"""RGB testbeds from one's own passages and questions (issue 36, item 1): positives, negatives, counterfactuals and
integration items, in RGB's format, the same for the same seed, read unchanged by ``rgb run``."""

from __future__ import annotations

import json
from pathlib import Path

from rageval_lc.cli import main
from rageval_lc.rgb.build import BuildReport, build_testbed, date_spellings, write_testbed
from rageval_lc.rgb.counterfactual import answer_kind, date_parts, find_mentions, number_parts
from rageval_lc.rgb.records import load_rgb
from rageval_lc.rgb.run import run_rgb
from tests.fakes import BagOfWordsEncoder

CORPUS = [
    "The Millau Viaduct opened on 14 December 2004 in southern France.",
    "Opened on Dec. 14, 2004, the Millau Viaduct crosses the Tarn valley.",
    "The Millau Viaduct is 2,460 metres long and was designed by Norman Foster.",
    "The Tarn valley bridge project was led by engineer Michel Virlogeux.",
    "The Golden Gate Bridge opened in May 1937 and is 2,737 metres long.",
    "The Golden Gate Bridge was designed by Joseph Strauss with Leon Moisseiff.",
    "Bridges in France include many viaducts over river valleys.",
    "Millau is a town in the Aveyron department.",
]
QUESTIONS = [
    {"question": "When did the Millau Viaduct open?", "answer": "14 December 2004"},
    {"question": "How long is the Millau Viaduct?", "answer": "2,460 metres"},
    {"question": "Who designed the Millau Viaduct?", "answer": "Norman Foster"},
    {"question": "Who designed the Golden Gate Bridge?", "answer": "Joseph Strauss"},
    {
        "question": "Who led the Tarn valley bridge project, and who designed the Millau Viaduct?",
        "answers": ["Michel Virlogeux", "Norman Foster"],
    },
    {"question": "How tall is the Eiffel Tower?", "answer": "330 metres"},
]


def build(seed: int = 7):
    return build_testbed(CORPUS, QUESTIONS, seed=seed, negatives=3, encoder=BagOfWordsEncoder())


def forms_of(record: dict) -> list[str]:
    answer = record["answer"]
    return [answer] if isinstance(answer, str) else [f for element in answer for f in element]


def test_positives_state_the_answer_and_negatives_do_not() -> None:
    records, _ = build()
    plain = [r for r in records if "positive_wrong" not in r and not isinstance(r["positive"][0], list)]
    assert [r["query"] for r in plain] == [q["question"] for q in QUESTIONS[:4]]
    when = plain[0]
    assert when["positive"] == CORPUS[:2]  # "14 December 2004" and "Dec. 14, 2004": the same day
    for record in plain:
        forms = forms_of(record)
        assert all(any(find_mentions(p, f) for f in forms) for p in record["positive"])
        assert record["negative"] and all(not any(find_mentions(n, f) for f in forms) for n in record["negative"])
        assert len(record["negative"]) <= 3


def test_no_counterfactual_passage_holds_the_true_answer_and_the_wrong_value_keeps_its_kind_and_form() -> None:
    records, _ = build()
    facts = [r for r in records if "positive_wrong" in r]
    assert [r["query"] for r in facts] == [q["question"] for q in QUESTIONS[:4]]
    for record in facts:
        truth = date_spellings(forms_of(record)[0]) + forms_of(record)
        for wrong_passage in record["positive_wrong"]:
            assert not any(find_mentions(wrong_passage, form) for form in truth), wrong_passage
            assert find_mentions(wrong_passage, record["fakeanswer"])  # the wrong value is what it says now
        assert answer_kind(record["fakeanswer"]) == answer_kind(forms_of(record)[0])
    date, length, designer, _ = facts
    assert date_parts(date["fakeanswer"])[0] == 12 and "December" in date["positive_wrong"][0]  # same spelling
    assert "Dec. " in date["positive_wrong"][1]
    assert number_parts(length["fakeanswer"])[2:] == (0, " metres") and "," in length["fakeanswer"]
    # another name of the corpus, of the same shape, that the positives do not hold
    assert designer["fakeanswer"] == "Michel Virlogeux" and designer["fakeanswer"] not in " ".join(designer["positive"])


def test_an_integration_item_groups_its_positives_by_element() -> None:
    records, report = build()
    (item,) = [r for r in records if isinstance(r["positive"][0], list)]
    assert item["answer"] == [["Michel Virlogeux"], ["Norman Foster"]]
    assert item["positive"] == [[CORPUS[3]], [CORPUS[2]]]
    assert report.kinds == {"en": 4, "fact": 4, "int": 1}
    assert report.dropped == {"no passage states the answer": 1}  # the Eiffel Tower
    assert report.which == [(5, "How tall is the Eiffel Tower?", "no passage states the answer")]


def test_the_same_seed_gives_the_same_file(tmp_path: Path) -> None:
    one = write_testbed(build(seed=7)[0], tmp_path / "a.json").read_bytes()
    two = write_testbed(build(seed=7)[0], tmp_path / "b.json").read_bytes()
    other = write_testbed(build(seed=8)[0], tmp_path / "c.json").read_bytes()
    assert one == two and one != other


def test_the_cli_builds_a_testbed_that_rgb_run_reads_unchanged(tmp_path: Path, capsys) -> None:
    corpus, questions, out = tmp_path / "corpus.jsonl", tmp_path / "qa.jsonl", tmp_path / "testbed.json"
    corpus.write_text("".join(json.dumps({"text": p}) + "\n" for p in CORPUS))
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    assert (
        main(
            [
                "rgb",
                "build",
                "--corpus",
                str(corpus),
                "--questions",
                str(questions),
                "--out",
                str(out),
                "--negatives",
                "3",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "6 questions: 4 noise/rejection, 4 counterfactual, 1 integration records" in printed
    assert "dropped 1: no passage states the answer" in printed
    assert "  question 5 ('How tall is the Eiffel Tower?'): no passage states the answer" in printed
    records = load_rgb(out)
    assert [r.kind for r in records].count("fact") == 4 and [r.kind for r in records].count("int") == 1

    def first_document(question: str, documents: list[str]) -> str:  # a system that repeats its first document
        return documents[0] if documents else ""

    run = run_rgb(first_document, records, noise_ratios=[0.0], include_rejection=False, progress=False)
    assert run.failures == 0 and len(run.rows) == 9


KINDS_CORPUS = [
    "Instagram was acquired by Facebook in 2012 for $1 billion.",
    "Facebook bought WhatsApp in 2014.",
    "Disney bought 21st Century Fox in 2019.",
    "The 2012 Olympic Games were held in London.",
    "The 2008 Games were held in Beijing.",
    "Super Bowl LV was played in Tampa, Florida.",
    "Super Bowl LVII was played in Glendale, Arizona.",
    "Amazon's assistant is called Alexa.",
    "She won three titles that year.",
]
KINDS_QUESTIONS = [
    {"question": "Who acquired Instagram?", "answer": "Facebook"},
    {"question": "Who bought 21st Century Fox?", "answer": "Disney"},
    {"question": "Where were the 2012 Olympic Games held?", "answer": "London"},
    {"question": "Where was Super Bowl LV played?", "answer": "Tampa, Florida"},
    {"question": "What is Amazon's assistant called?", "answer": "Alexa"},
    {"question": "How many titles did she win that year?", "answer": "3"},
]


def test_a_name_becomes_a_name_of_its_kind_or_the_record_is_dropped_with_the_reason() -> None:
    records, report = build_testbed(KINDS_CORPUS, KINDS_QUESTIONS, seed=7, negatives=2, encoder=BagOfWordsEncoder())
    fake = {r["query"]: r["fakeanswer"] for r in records if "positive_wrong" in r}
    # the other organisation among the answers, never the city or the assistant of one word
    assert fake["Who acquired Instagram?"] == "Disney" and fake["Who bought 21st Century Fox?"] == "Facebook"
    # no other city among the answers: a city of the corpus standing where London stands, after "in" (Beijing,
    # Tampa, Glendale; seed 7 draws Beijing), never Facebook, Disney or Alexa
    assert fake["Where were the 2012 Olympic Games held?"] == "Beijing"
    assert fake["Where was Super Bowl LV played?"] == "Glendale, Arizona"  # the corpus's other "City, State"
    # "three" states the answer 3 and becomes a number word: 3 x 1.25-2.0 rounds to 4 with seed 7
    (titles,) = [r for r in records if r["query"] == "How many titles did she win that year?" and "fakeanswer" in r]
    assert (titles["positive"], titles["fakeanswer"]) == ([KINDS_CORPUS[-1]], "4")
    assert titles["positive_wrong"] == ["She won four titles that year."]
    # nothing else of one word is an assistant (or a product): no counterfactual rather than a company or a city
    assert "What is Amazon's assistant called?" not in fake
    assert report.dropped == {
        "counterfactual: no other name of its kind (other name) and shape (1 word) in the pool": 1
    }
    assert report.kinds == {"en": 6, "fact": 5, "int": 0}


def test_the_report_names_the_questions_it_dropped_and_counts_the_rest() -> None:
    report = BuildReport(questions=3)
    report.drop(0, "Who won?", "no passage states the answer")
    report.drop(2, "When was it?", "counterfactual: no other name of its kind")
    assert report.lines(named=1) == [
        "3 questions: 0 noise/rejection, 0 counterfactual, 0 integration records",
        "dropped 1: counterfactual: no other name of its kind",
        "dropped 1: no passage states the answer",
        "  question 0 ('Who won?'): no passage states the answer",
        "  and 1 more",
    ]

"""Labelled rows like a new user's first ``rageval align`` trial (issue 33): short questions, a passage of two or
three sentences with a bystander fact, and two answers per question — one faithful, one with a single wrong fact.

``trial_rows(18)`` is the trial's 36 rows (18 faithful, 18 wrong); ``trial_rows(18, start=18)`` a second set on
other questions, for checking the aligned judge on rows it never saw.

Example:
    >>> rows = trial_rows(2)
    >>> [(r["response"], r["faithful"]) for r in rows[:2]]
    [('Jane Austen wrote Pride and Prejudice.', True), ('Charlotte Brontë wrote Pride and Prejudice.', False)]
"""

from __future__ import annotations

#: (question, passage, faithful answer, answer with one wrong fact)
FACTS = [
    (
        "Who wrote Pride and Prejudice?",
        "Pride and Prejudice is a novel by Jane Austen, published in 1813. It follows Elizabeth Bennet. "
        "Jane Eyre, by Charlotte Brontë, appeared in 1847.",
        "Jane Austen wrote Pride and Prejudice.",
        "Charlotte Brontë wrote Pride and Prejudice.",
    ),
    (
        "When was Pride and Prejudice published?",
        "Pride and Prejudice is a novel by Jane Austen, first published in 1813 by Thomas Egerton. "
        "Austen had drafted it in 1796 under another title.",
        "It was first published in 1813.",
        "It was first published in 1796.",
    ),
    (
        "How tall is Mount Kilimanjaro?",
        "Mount Kilimanjaro rises 5,895 metres above sea level. It is the highest mountain in Africa. "
        "Mount Kenya, its neighbour, reaches 5,199 metres.",
        "Kilimanjaro is 5,895 metres high.",
        "Kilimanjaro is 5,199 metres high.",
    ),
    (
        "Where is the Louvre?",
        "The Louvre is the world's most-visited museum and is located in Paris, France. "
        "It opened in 1793 in a former royal palace.",
        "The Louvre is in Paris.",
        "The Louvre is in Lyon.",
    ),
    (
        "Who discovered penicillin?",
        "Penicillin was discovered in 1928 by the Scottish physician Alexander Fleming. "
        "Howard Florey and Ernst Chain later developed it into a medicine.",
        "Alexander Fleming discovered penicillin in 1928.",
        "Howard Florey discovered penicillin in 1928.",
    ),
    (
        "How long is the Great Barrier Reef?",
        "The Great Barrier Reef stretches for over 2,300 kilometres off the coast of Queensland. "
        "It is made up of nearly 3,000 individual reefs.",
        "The reef is more than 2,300 kilometres long.",
        "The reef is more than 3,000 kilometres long.",
    ),
    (
        "What is the capital of Canada?",
        "Ottawa is the capital city of Canada. Toronto is the country's largest city, and Montreal its second.",
        "The capital of Canada is Ottawa.",
        "The capital of Canada is Toronto.",
    ),
    (
        "When did the Berlin Wall fall?",
        "The Berlin Wall fell on 9 November 1989, after weeks of protest in East Germany. "
        "It had been built in August 1961.",
        "The Berlin Wall fell in November 1989.",
        "The Berlin Wall fell in August 1961.",
    ),
    (
        "How many moons does Mars have?",
        "Mars has two small moons, Phobos and Deimos. Jupiter has more than ninety known moons.",
        "Mars has two moons, Phobos and Deimos.",
        "Mars has four moons, Phobos and Deimos among them.",
    ),
    (
        "What is the boiling point of water at sea level?",
        "At sea level, pure water boils at 100 degrees Celsius. On the summit of Everest it boils at about "
        "70 degrees Celsius because the air pressure is lower.",
        "Water boils at 100 degrees Celsius at sea level.",
        "Water boils at 70 degrees Celsius at sea level.",
    ),
    (
        "Who painted the Mona Lisa?",
        "The Mona Lisa was painted by Leonardo da Vinci between 1503 and 1519. It hangs in the Louvre. "
        "Raphael made a drawing after it around 1504.",
        "Leonardo da Vinci painted the Mona Lisa.",
        "Raphael painted the Mona Lisa.",
    ),
    (
        "Which organ produces insulin?",
        "Insulin is a hormone produced by beta cells in the pancreas. The liver stores glucose as glycogen.",
        "Insulin is produced by the pancreas.",
        "Insulin is produced by the liver.",
    ),
    (
        "What is the largest ocean?",
        "The Pacific Ocean is the largest and deepest of Earth's oceans. The Atlantic is the second largest.",
        "The Pacific is the largest ocean.",
        "The Atlantic is the largest ocean.",
    ),
    (
        "How many players are on a football team on the pitch?",
        "In association football each team has eleven players on the pitch, one of them the goalkeeper. "
        "Up to five substitutions are allowed in most competitions.",
        "Each team fields eleven players, including the goalkeeper.",
        "Each team fields five players, including the goalkeeper.",
    ),
    (
        "Where was Mozart born?",
        "Wolfgang Amadeus Mozart was born in Salzburg in 1756. He later settled in Vienna, where he died in 1791.",
        "Mozart was born in Salzburg.",
        "Mozart was born in Vienna.",
    ),
    (
        "What is the chemical symbol for gold?",
        "Gold is a chemical element with the symbol Au and atomic number 79. Silver has the symbol Ag.",
        "The symbol for gold is Au.",
        "The symbol for gold is Ag.",
    ),
    (
        "How long does the Moon take to orbit the Earth?",
        "The Moon completes one orbit of the Earth in about 27.3 days. A full cycle of phases takes about 29.5 days.",
        "The Moon orbits the Earth in about 27.3 days.",
        "The Moon orbits the Earth in about 35 days.",
    ),
    (
        "Who was the first person to walk on the Moon?",
        "Neil Armstrong became the first person to walk on the Moon on 21 July 1969. Buzz Aldrin followed him "
        "about twenty minutes later.",
        "Neil Armstrong was the first person on the Moon.",
        "Buzz Aldrin was the first person on the Moon.",
    ),
    (
        "What language is spoken in Brazil?",
        "Portuguese is the official and most widely spoken language of Brazil. Spanish is spoken in most of "
        "its neighbours.",
        "People in Brazil speak Portuguese.",
        "People in Brazil speak Spanish.",
    ),
    (
        "How many bones are in the adult human body?",
        "An adult human skeleton has 206 bones. A newborn has around 270, some of which fuse with age.",
        "An adult has 206 bones.",
        "An adult has 270 bones.",
    ),
    (
        "When did the Titanic sink?",
        "The RMS Titanic sank in the North Atlantic on 15 April 1912 after striking an iceberg. "
        "Its sister ship Olympic served until 1935.",
        "The Titanic sank in April 1912.",
        "The Titanic sank in April 1935.",
    ),
    (
        "What is the longest river in Africa?",
        "The Nile, about 6,650 kilometres long, is the longest river in Africa. The Congo is the deepest.",
        "The Nile is Africa's longest river.",
        "The Congo is Africa's longest river.",
    ),
    (
        "Who developed the theory of general relativity?",
        "Albert Einstein published the theory of general relativity in 1915. Isaac Newton's law of gravitation "
        "had stood since 1687.",
        "Albert Einstein developed general relativity.",
        "Isaac Newton developed general relativity.",
    ),
    (
        "How fast does light travel in a vacuum?",
        "Light travels through a vacuum at about 299,792 kilometres per second. Sound in air moves at roughly "
        "343 metres per second.",
        "Light travels at about 299,792 kilometres per second.",
        "Light travels at about 343 kilometres per second.",
    ),
    (
        "What is the capital of Australia?",
        "Canberra is the capital of Australia. Sydney is its most populous city.",
        "Canberra is the capital of Australia.",
        "Sydney is the capital of Australia.",
    ),
    (
        "Which planet is closest to the Sun?",
        "Mercury is the smallest planet and the closest to the Sun. Venus is the hottest planet.",
        "Mercury is the planet closest to the Sun.",
        "Venus is the planet closest to the Sun.",
    ),
    (
        "When did the First World War end?",
        "The First World War ended with the armistice of 11 November 1918. It had begun in July 1914.",
        "The war ended in November 1918.",
        "The war ended in July 1914.",
    ),
    (
        "Who wrote Hamlet?",
        "Hamlet is a tragedy written by William Shakespeare around 1600. Christopher Marlowe wrote Doctor Faustus.",
        "William Shakespeare wrote Hamlet.",
        "Christopher Marlowe wrote Hamlet.",
    ),
    (
        "How deep is the Mariana Trench?",
        "The Mariana Trench reaches a depth of about 10,935 metres at the Challenger Deep. Mount Everest is "
        "8,849 metres tall.",
        "The trench is about 10,935 metres deep.",
        "The trench is about 8,849 metres deep.",
    ),
    (
        "What gas do plants absorb for photosynthesis?",
        "During photosynthesis plants absorb carbon dioxide and release oxygen. They also take up water "
        "through their roots.",
        "Plants absorb carbon dioxide for photosynthesis.",
        "Plants absorb oxygen for photosynthesis.",
    ),
    (
        "Where is the Taj Mahal?",
        "The Taj Mahal is a white marble mausoleum in Agra, India. It was commissioned by Shah Jahan in 1632.",
        "The Taj Mahal is in Agra.",
        "The Taj Mahal is in Delhi.",
    ),
    (
        "How many strings does a standard violin have?",
        "A standard violin has four strings tuned in fifths. A cello also has four, and a classical guitar six.",
        "A violin has four strings.",
        "A violin has six strings.",
    ),
    (
        "Who invented the telephone?",
        "Alexander Graham Bell was granted the first patent for the telephone in 1876. Thomas Edison later "
        "improved its transmitter.",
        "Alexander Graham Bell invented the telephone.",
        "Thomas Edison invented the telephone.",
    ),
    (
        "What is the freezing point of water in Fahrenheit?",
        "Water freezes at 32 degrees Fahrenheit, which is 0 degrees Celsius. It boils at 212 degrees Fahrenheit.",
        "Water freezes at 32 degrees Fahrenheit.",
        "Water freezes at 212 degrees Fahrenheit.",
    ),
    (
        "Which country has the largest population in South America?",
        "Brazil is the most populous country in South America, with over 200 million people. Colombia is second.",
        "Brazil has the largest population in South America.",
        "Colombia has the largest population in South America.",
    ),
    (
        "When was the Eiffel Tower completed?",
        "The Eiffel Tower was completed in March 1889 for the World's Fair. It was the tallest structure in "
        "the world until 1930.",
        "The Eiffel Tower was completed in 1889.",
        "The Eiffel Tower was completed in 1930.",
    ),
]


def right_verdicts(judge: str, rows: list[dict]) -> int:
    """How many of ``rows``' faithfulness verdicts by ``judge`` (1.0: faithful) match their labels."""
    from rageval_lc import evaluate

    samples = [{k: r[k] for k in ("question", "contexts", "response")} for r in rows]
    results = evaluate(samples, "faithfulness", judge=judge).results
    return sum(
        (res.results["faithfulness"].score == 1.0) == r["faithful"] for r, res in zip(rows, results, strict=True)
    )


def trial_rows(questions: int, *, start: int = 0) -> list[dict]:
    """Two labelled rows (faithful, then one wrong fact) for each of ``questions`` questions from ``start``."""
    if start + questions > len(FACTS):
        raise ValueError(f"only {len(FACTS)} questions; asked for {start} + {questions}.")
    rows = []
    for i, (question, passage, right, wrong) in enumerate(FACTS[start : start + questions], start=start):
        for j, (response, faithful) in enumerate(((right, True), (wrong, False))):
            rows.append(
                {
                    "id": f"t{i}-{j}",
                    "question": question,
                    "contexts": [passage],
                    "response": response,
                    "faithful": faithful,
                }
            )
    return rows

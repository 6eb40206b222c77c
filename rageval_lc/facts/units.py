"""Units of measure (and currencies) as words and symbols, each with its dimension and its size in the
dimension's base unit (metres, grams, square metres, litres, seconds, watts, volts, bytes, a currency's unit); a
unit's name and its abbreviation; the units a quantity is converted between; a unit to put in another's place.

Example:
    >>> UNITS["km"], UNITS["square miles"], UNITS["°c"]
    (('length', 1000.0), ('area', 2589988.110336), ('temperature_c', 1.0))
    >>> UNIT_NAMES["km"], UNIT_ABBREVIATIONS["kilometres"], british_spelling("liters"), UNIT_SWAPS["kg"]
    (('kilometer', 'kilometers'), 'km', 'litres', 'lb')
    >>> UNIT_STEPS["volume"]
    (('milliliter', 0.001), ('liter', 1.0))
    >>> unit_after("It is 12 square-miles wide.", 8), unit_after("Add 5 m of rope", 5), unit_after("5 in all", 1)
    (('square miles', 21), ('m', 7), ('', 1))
"""

from __future__ import annotations

import re

__all__ = ["UNITS", "UNIT_ABBREVIATIONS", "UNIT_NAMES", "UNIT_STEPS", "UNIT_SWAPS", "british_spelling", "unit_after"]

#: A unit's word or symbol, lower-cased (with spaces between words: "square metres") -> (its dimension, its size
#: in the dimension's base unit). Months and years are their own dimensions (a month has no fixed length in days);
#: temperatures in Celsius and in Fahrenheit too (no factor turns one into the other).
UNITS: dict[str, tuple[str, float]] = {}
for _words, _dim, _factor in (
    ("mm millimetre millimetres millimeter millimeters", "length", 0.001),
    ("cm centimetre centimetres centimeter centimeters", "length", 0.01),
    ("m metre metres meter meters", "length", 1.0),
    ("km kilometre kilometres kilometer kilometers", "length", 1000.0),
    ("in inch inches", "length", 0.0254),
    ("ft foot feet", "length", 0.3048),
    ("mi mile miles", "length", 1609.344),
    ("µg mcg microgram micrograms", "mass", 1e-6),
    ("mg milligram milligrams", "mass", 0.001),
    ("g gram grams", "mass", 1.0),
    ("kg kilogram kilograms kilo kilos", "mass", 1000.0),
    ("t tonne tonnes", "mass", 1e6),
    ("lb lbs pound pounds", "mass", 453.59237),
    ("oz ounce ounces", "mass", 28.349523),
    ("mm2 mm² square_millimetres square_millimeters", "area", 1e-6),
    ("cm2 cm² square_centimetres square_centimeters", "area", 1e-4),
    ("m2 m² sq_m square_metres square_meters square_metre square_meter", "area", 1.0),
    ("ha hectare hectares", "area", 1e4),
    ("km2 km² sq_km square_kilometres square_kilometers square_kilometre square_kilometer", "area", 1e6),
    ("acre acres", "area", 4046.8564224),
    ("sq_mi square_mile square_miles", "area", 2589988.110336),
    ("sq_ft square_foot square_feet", "area", 0.09290304),
    ("µg/day", "mass", 1e-6),
    ("ml millilitre millilitres milliliter milliliters", "volume", 0.001),
    ("l litre litres liter liters", "volume", 1.0),
    ("gallon gallons", "volume", 3.785411784),
    ("s sec second seconds", "time", 1.0),
    ("min minute minutes", "time", 60.0),
    ("h hr hrs hour hours", "time", 3600.0),
    ("day days", "time", 86400.0),
    ("week weeks", "time", 604800.0),
    ("month months", "months", 1.0),
    ("year years", "years", 1.0),
    ("% percent per_cent pc", "percent", 1.0),
    ("°c celsius degrees_celsius degrees_c", "temperature_c", 1.0),
    ("°f fahrenheit degrees_fahrenheit degrees_f", "temperature_f", 1.0),
    ("km/h kph kmh kilometres_per_hour kilometers_per_hour", "speed", 1 / 3.6),
    ("mph miles_per_hour", "speed", 0.44704),
    ("w watt watts", "power", 1.0),
    ("kw kilowatt kilowatts", "power", 1000.0),
    ("v volt volts", "voltage", 1.0),
    ("mb megabyte megabytes", "bytes", 1e6),
    ("gb gigabyte gigabytes", "bytes", 1e9),
    ("tb terabyte terabytes", "bytes", 1e12),
    ("usd dollar dollars", "usd", 1.0),
    ("cent cents", "usd", 0.01),
    ("eur euro euros", "eur", 1.0),
    ("gbp", "gbp", 1.0),
    ("jpy yen", "jpy", 1.0),
):
    for _w in _words.split():
        UNITS[_w.replace("_", " ")] = (_dim, _factor)


_UNIT_WORDS = sorted(UNITS, key=len, reverse=True)
_UNIT_AFTER = re.compile(
    r"\s*(?:-\s*)?(" + "|".join(re.escape(u).replace(r"\ ", r"[\s-]+") for u in _UNIT_WORDS) + r")(?![\w°])", re.I
)


def unit_after(text: str, end: int) -> tuple[str, int]:
    """The unit of :data:`UNITS` written at ``end`` of ``text`` (after a number), lower-cased with single spaces
    between its words, and where it ends; else ("", ``end``). A unit of one or two letters that is also a word or
    an article ("in", "s", "t", "m", "min", "pc" ...) counts only right after the number ("5 m", "5m"), and "in"
    never does."""
    match = _UNIT_AFTER.match(text, end)
    if not match:
        return "", end
    word = re.sub(r"[\s-]+", " ", match.group(1).lower())
    if word in ("in", "s", "t", "l", "h", "m", "g", "v", "w", "min", "pc") and not _tight_unit(text, match):
        return "", end  # "in", "m", "s" as unit letters only right after the number ("5 m", "5m")
    return word, match.end()


def _tight_unit(text: str, match: re.Match[str]) -> bool:
    after = text[match.end() : match.end() + 1]
    word = match.group(1)
    if word.lower() == "in":
        return False  # "5 in" is nearly always the preposition
    return not after.isalpha() and (match.start(1) - match.start() <= 1)


def british_spelling(word: str) -> str:
    """``word`` with a metre's and a litre's British spelling ("kilometers" -> "kilometres", "liter" -> "litre")."""
    return word.replace("meter", "metre").replace("liter", "litre")


#: A unit's abbreviation, as written (case kept: "mL", "L", "kW") -> its name, singular and plural, spelled the
#: American way (:func:`british_spelling` spells it the British way).
UNIT_NAMES: dict[str, tuple[str, str]] = {
    "km": ("kilometer", "kilometers"), "m": ("meter", "meters"), "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"), "kg": ("kilogram", "kilograms"), "g": ("gram", "grams"),
    "mg": ("milligram", "milligrams"), "mcg": ("microgram", "micrograms"), "µg": ("microgram", "micrograms"),
    "lb": ("pound", "pounds"), "lbs": ("pound", "pounds"), "oz": ("ounce", "ounces"), "ft": ("foot", "feet"),
    "mi": ("mile", "miles"), "ml": ("milliliter", "milliliters"), "mL": ("milliliter", "milliliters"),
    "l": ("liter", "liters"), "L": ("liter", "liters"), "h": ("hour", "hours"), "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"), "min": ("minute", "minutes"), "mins": ("minute", "minutes"),
    "sec": ("second", "seconds"), "secs": ("second", "seconds"), "%": ("percent", "percent"),
    "°C": ("degree Celsius", "degrees Celsius"), "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "mph": ("mile per hour", "miles per hour"), "km/h": ("kilometer per hour", "kilometers per hour"),
    "GB": ("gigabyte", "gigabytes"), "MB": ("megabyte", "megabytes"), "TB": ("terabyte", "terabytes"),
    "kW": ("kilowatt", "kilowatts"), "W": ("watt", "watts"), "V": ("volt", "volts"),
}  # fmt: skip
#: Of the abbreviations of :data:`UNIT_NAMES` that name one unit, the one a unit's name is abbreviated to.
_USUAL = {"lbs": "lb", "mins": "min", "secs": "sec", "hr": "h", "hrs": "h", "mL": "ml", "L": "l", "µg": "mcg"}
#: A unit's name, lower-cased, singular or plural, either spelling (and "per cent") -> its usual abbreviation.
UNIT_ABBREVIATIONS: dict[str, str] = {}
for _abbreviation, _names in UNIT_NAMES.items():
    for _name in _names:
        for _spelled in (_name, british_spelling(_name)):
            UNIT_ABBREVIATIONS.setdefault(_spelled.lower(), _USUAL.get(_abbreviation, _abbreviation))
UNIT_ABBREVIATIONS["per cent"] = "%"

#: The units a quantity of a dimension is converted between, smallest first, each with its size of :data:`UNITS`
#: (names spelled the American way).
UNIT_STEPS: dict[str, tuple[tuple[str, float], ...]] = {
    dimension: tuple((name, UNITS[name][1]) for name in names.split())
    for dimension, names in (
        ("time", "second minute hour day week"),
        ("length", "millimeter centimeter meter kilometer"),
        ("mass", "milligram gram kilogram"),
        ("volume", "milliliter liter"),
    )
}

#: A unit (or a scale, or an angle's unit) after a number -> another that states a different amount, as written:
#: the wrong unit a minimal edit puts in its place ("8,849 metres" -> "8,849 feet").
UNIT_SWAPS: dict[str, str] = {
    "kilometres": "miles", "kilometers": "miles", "miles": "kilometres", "metres": "feet", "meters": "feet",
    "feet": "metres", "kilograms": "pounds", "kg": "lb", "pounds": "kilograms", "million": "billion",
    "billion": "million", "thousand": "million", "per cent": "per mille", "percent": "times", "hours": "minutes",
    "minutes": "seconds", "days": "weeks", "weeks": "months", "months": "years", "years": "months",
    "°C": "°F", "degrees": "radians", "litres": "gallons", "inches": "centimetres", "centimetres": "inches",
}  # fmt: skip

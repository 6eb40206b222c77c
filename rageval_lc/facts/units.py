"""Units of measure (and currencies) as words and symbols, each with its dimension and its size in the
dimension's base unit (metres, grams, square metres, litres, seconds, watts, volts, bytes, a currency's unit).

Example:
    >>> UNITS["km"], UNITS["square miles"], UNITS["°c"]
    (('length', 1000.0), ('area', 2589988.110336), ('temperature_c', 1.0))
"""

from __future__ import annotations

__all__ = ["UNITS"]

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

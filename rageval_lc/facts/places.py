"""Places: the countries, the US states with their well-known cities, provinces abroad, cities of the world.

Example:
    >>> sorted(c for c in COUNTRIES if c.startswith("Ne")), US_STATES["Ohio"]
    (['Nepal', 'Netherlands', 'New Zealand'], ('Columbus', 'Cleveland', 'Cincinnati'))
    >>> "Chicago" in WORLD_CITIES, "Tampa" in WORLD_CITIES, "Tampa" in CITIES
    (True, False, True)
"""

from __future__ import annotations

__all__ = [
    "CITIES",
    "CITIES_NAMED_LIKE_PEOPLE",
    "COUNTRIES",
    "REGIONS_ABROAD",
    "US_STATES",
    "WELL_KNOWN_CITIES",
    "WELL_KNOWN_COUNTRIES",
    "WORLD_CITIES",
]

#: The countries written about most, each by a one-word name (England, Scotland and Wales among them).
WELL_KNOWN_COUNTRIES = frozenset(
    """Afghanistan Albania Algeria Argentina Armenia Australia Austria Bangladesh Belgium Bolivia Brazil Bulgaria
    Cambodia Cameroon Canada Chile China Colombia Croatia Cuba Denmark Ecuador Egypt England Estonia Ethiopia
    Finland France Germany Ghana Greece Haiti Hungary Iceland India Indonesia Iran Iraq Ireland Israel Italy Jamaica
    Japan Jordan Kenya Latvia Lebanon Libya Lithuania Malaysia Mexico Morocco Nepal Netherlands Nigeria Norway
    Pakistan Peru Philippines Poland Portugal Romania Russia Scotland Serbia Singapore Slovakia Slovenia Spain
    Sweden Switzerland Syria Taiwan Thailand Turkey Uganda Ukraine Uruguay Venezuela Vietnam Wales Zimbabwe""".split()
)
#: The countries: the well-known ones, the others, those of two words or more, and the short names news writes
#: ("U.S.", "UK").
COUNTRIES = (
    WELL_KNOWN_COUNTRIES
    | frozenset(
        """Andorra Angola Azerbaijan Bahamas Bahrain Barbados Belarus Belize Benin Bhutan Botswana Brunei Burundi Chad
        Comoros Congo Cyprus Czechia Djibouti Dominica Eritrea Eswatini Fiji Gabon Gambia Georgia Grenada Guatemala
        Guinea Guyana Honduras Kazakhstan Kiribati Kosovo Kuwait Kyrgyzstan Laos Lesotho Liberia Liechtenstein
        Luxembourg Madagascar Malawi Maldives Mali Malta Mauritania Mauritius Micronesia Moldova Monaco Mongolia
        Montenegro Mozambique Myanmar Namibia Nauru Nicaragua Niger Oman Palau Palestine Panama Paraguay Qatar Rwanda
        Samoa Senegal Seychelles Somalia Sudan Suriname Tajikistan Tanzania Togo Tonga Tunisia Turkmenistan Tuvalu
        Uzbekistan Vanuatu Yemen Zambia""".split()
    )
    | frozenset(
        [
            "United States",
            "United Kingdom",
            "New Zealand",
            "South Africa",
            "South Korea",
            "North Korea",
            "Saudi Arabia",
            "Sri Lanka",
            "Costa Rica",
            "El Salvador",
            "Czech Republic",
            "Dominican Republic",
            "Sierra Leone",
            "Burkina Faso",
            "Ivory Coast",
            "Northern Ireland",
            "United Arab Emirates",
            "Papua New Guinea",
        ]
    )
    | frozenset("U.S. US USA U.K. UK".split())
)

#: The US states, each with well-known cities of its own (its capital and largest ones).
US_STATES: dict[str, tuple[str, ...]] = {
    "Alabama": ("Montgomery", "Birmingham", "Mobile"),
    "Alaska": ("Juneau", "Anchorage", "Fairbanks"),
    "Arizona": ("Phoenix", "Tucson", "Glendale", "Mesa"),
    "Arkansas": ("Little Rock", "Fayetteville"),
    "California": ("Sacramento", "Los Angeles", "San Diego", "San Francisco", "San Jose", "Oakland", "Fresno"),
    "Colorado": ("Denver", "Boulder", "Aurora"),
    "Connecticut": ("Hartford", "Bridgeport", "Stamford"),
    "Delaware": ("Dover", "Wilmington"),
    "Florida": ("Tallahassee", "Miami", "Tampa", "Orlando", "Jacksonville"),
    "Georgia": ("Atlanta", "Savannah", "Augusta"),
    "Hawaii": ("Honolulu", "Hilo"),
    "Idaho": ("Boise", "Pocatello"),
    "Illinois": ("Springfield", "Chicago", "Peoria"),
    "Indiana": ("Indianapolis", "Bloomington"),
    "Iowa": ("Des Moines", "Davenport"),
    "Kansas": ("Topeka", "Wichita"),
    "Kentucky": ("Frankfort", "Louisville", "Lexington"),
    "Louisiana": ("Baton Rouge", "New Orleans", "Shreveport"),
    "Maine": ("Augusta", "Portland", "Bangor"),
    "Maryland": ("Annapolis", "Baltimore"),
    "Massachusetts": ("Boston", "Worcester", "Cambridge"),
    "Michigan": ("Lansing", "Detroit", "Flint"),
    "Minnesota": ("Saint Paul", "Minneapolis", "Duluth"),
    "Mississippi": ("Jackson", "Biloxi"),
    "Missouri": ("Jefferson City", "Kansas City", "St. Louis"),
    "Montana": ("Helena", "Billings"),
    "Nebraska": ("Lincoln", "Omaha"),
    "Nevada": ("Carson City", "Las Vegas", "Reno"),
    "New Hampshire": ("Concord", "Manchester"),
    "New Jersey": ("Trenton", "Newark", "East Rutherford"),
    "New Mexico": ("Santa Fe", "Albuquerque"),
    "New York": ("Albany", "New York City", "Buffalo", "Rochester"),
    "North Carolina": ("Raleigh", "Charlotte", "Durham"),
    "North Dakota": ("Bismarck", "Fargo"),
    "Ohio": ("Columbus", "Cleveland", "Cincinnati"),
    "Oklahoma": ("Oklahoma City", "Tulsa"),
    "Oregon": ("Salem", "Portland", "Eugene"),
    "Pennsylvania": ("Harrisburg", "Philadelphia", "Pittsburgh"),
    "Rhode Island": ("Providence", "Newport"),
    "South Carolina": ("Columbia", "Charleston"),
    "South Dakota": ("Pierre", "Sioux Falls"),
    "Tennessee": ("Nashville", "Memphis", "Knoxville"),
    "Texas": ("Austin", "Houston", "Dallas", "San Antonio", "Arlington"),
    "Utah": ("Salt Lake City", "Provo"),
    "Vermont": ("Montpelier", "Burlington"),
    "Virginia": ("Richmond", "Norfolk"),
    "Washington": ("Olympia", "Seattle", "Spokane"),
    "West Virginia": ("Charleston", "Huntington"),
    "Wisconsin": ("Madison", "Milwaukee", "Green Bay"),
    "Wyoming": ("Cheyenne", "Casper"),
}

#: States and provinces of other countries that a text names alone ("Ontario", "Bavaria").
REGIONS_ABROAD = frozenset("Ontario Quebec Queensland Victoria Bavaria".split())

#: Well-known cities of the world, the US's among them.
WELL_KNOWN_CITIES = frozenset(
    """Amsterdam Athens Atlanta Auckland Baltimore Bangkok Barcelona Beijing Berlin Birmingham Boston Brussels
    Budapest Cairo Chicago Cleveland Copenhagen Dallas Delhi Denver Detroit Dublin Edinburgh Glasgow Hamburg Helsinki
    Houston Istanbul Lisbon Liverpool London Madrid Manchester Melbourne Miami Milan Minneapolis Montreal Moscow
    Mumbai Munich Naples Oslo Paris Philadelphia Phoenix Pittsburgh Prague Rome Seattle Seoul Shanghai Stockholm
    Sydney Tokyo Toronto Vancouver Vienna Warsaw Wellington""".split()
)
#: Cities of the world: the well-known ones and more (the US cities of :data:`US_STATES` are :data:`CITIES`').
WORLD_CITIES = (
    WELL_KNOWN_CITIES
    | frozenset(
        """Nairobi Lagos Johannesburg Dubai Doha Jakarta Manila Sochi Pyeongchang Nagano Turin Beirut Jerusalem
        Tehran Baghdad Karachi Lahore Dhaka Hanoi Taipei Osaka Kyoto Lima Santiago Bogota Caracas Havana Brasilia
        Geneva Zurich Marseille Lyon Florence Venice Adelaide
        Brisbane Perth Seville""".split()
    )
    | frozenset(["New York", "Los Angeles", "Rio de Janeiro", "Buenos Aires", "Mexico City", "Hong Kong", "Cape Town"])
)
#: Every city of the lists: the world's and the US states'.
CITIES = frozenset([*WORLD_CITIES, *(city for cities in US_STATES.values() for city in cities)])
#: One-word cities that are as often a person's or a company's name ("Phoenix, who played the Joker").
CITIES_NAMED_LIKE_PEOPLE = frozenset(
    """Phoenix Charlotte Austin Jackson Lincoln Madison Columbia Mobile Aurora Salem Augusta Columbus Providence
    Concord Florence Eugene Durham Richmond Norfolk Lexington Springfield Birmingham Cambridge Mesa Flint Casper
    Helena Pierre Hartford Dover Newport Burlington Charleston Huntington Wilmington Bloomington Savannah Orlando
    Nashville Memphis Houston Dallas Denver Boston Jacksonville Tulsa Reno Boise Marshall""".split()
)

"""The words values are named with: units and their dimensions (squares and cubes of lengths
too: "square metres", "sq ft", "km²", "cubic metres", "m³"; power, energy and speed; the metre
as some other languages spell it: Welsh, Czech and Polish "metr", Welsh "metrau", Italian
"metri", Spanish and Portuguese "metros", so a page in the original language states its
figure), categorical values and their category, month names."""

from __future__ import annotations

__all__ = ["CATEGORIES", "MONTHS", "UNITS"]

UNITS: dict[str, tuple[str, float]] = {}
for _dimension, _table in {
    "length": {
        "mm millimetre millimetres millimeter millimeters": 0.001,
        "cm centimetre centimetres centimeter centimeters": 0.01,
        "m metre metres meter meters metr metrau metri metros": 1.0,
        "km kilometre kilometres kilometer kilometers kilometr kilometrau kilometri kilometros": (
            1000.0
        ),
        "in inch inches": 0.0254,
        "ft foot feet": 0.3048,
        "yd yard yards": 0.9144,
        "mi mile miles": 1609.344,
        "nautical_mile nautical_miles nmi": 1852.0,
        "fathom fathoms": 1.8288,
    },
    "mass": {
        "g gram grams gramme grammes": 0.001,
        "kg kilogram kilograms kilo kilos": 1.0,
        "t tonne tonnes ton tons": 1000.0,
        "lb lbs pound pounds": 0.45359237,
        "oz ounce ounces": 0.028349523125,
        "stone stones": 6.35029318,
        "carat carats": 0.0002,
    },
    "duration": {
        "ms millisecond milliseconds": 0.001,
        "s sec secs second seconds": 1.0,
        "min mins minute minutes": 60.0,
        "h hr hrs hour hours": 3600.0,
        "day days": 86400.0,
        "week weeks": 604800.0,
        "year years": 31557600.0,
        "decade decades": 315576000.0,
        "century centuries": 3155760000.0,
    },
    "volume": {
        "ml millilitre millilitres milliliter milliliters": 0.001,
        "cl centilitre centilitres centiliter centiliters": 0.01,
        "l litre litres liter liters": 1.0,
        "gallon gallons": 3.785411784,
        "imperial_gallon imperial_gallons": 4.54609,
    },
    "area": {"hectare hectares ha": 10000.0, "acre acres": 4046.8564224},
    "data": {
        "byte bytes": 1.0,
        "kb kib kilobyte kilobytes": 1024.0,
        "mb mib megabyte megabytes": 1024.0**2,
        "gb gib gigabyte gigabytes": 1024.0**3,
    },
    "share": {"% percent per-cent pct": 1.0},
    "power": {
        "watt watts": 1.0,
        "kw kilowatt kilowatts": 1e3,
        "mw megawatt megawatts": 1e6,
        "gw gigawatt gigawatts": 1e9,
        "hp bhp horsepower": 745.69987158227022,
        "metric_horsepower": 735.49875,
    },
    "energy": {
        "joule joules": 1.0,
        "kj kilojoule kilojoules": 1e3,
        "mj megajoule megajoules": 1e6,
        "kwh kilowatt_hour kilowatt_hours": 3.6e6,
        "mwh megawatt_hour megawatt_hours": 3.6e9,
        "kcal kilocalorie kilocalories": 4184.0,
    },
    "speed": {
        "mph": 0.44704,
        "kph kmh": 1 / 3.6,
        "knot knots": 1852 / 3600,
    },
    "pressure": {
        "pascal pascals": 1.0,
        "hpa hectopascal hectopascals": 100.0,
        "kpa kilopascal kilopascals": 1000.0,
        "mpa megapascal megapascals": 1e6,
        "bar": 1e5,
        "mbar millibar millibars": 100.0,
        "psi": 6894.757293168,
    },
}.items():
    for _names, _factor in _table.items():
        UNITS |= {name.replace("_", " "): (_dimension, _factor) for name in _names.split()}
_POWERS = (("area", 2, 1.0, "square sq", "²"), ("volume", 3, 1000.0, "cubic cu", "³"))
"""Squares and cubes of lengths, in square metres and in litres (a cubic metre holds 1000)."""
for _name, (_dimension, _factor) in list(UNITS.items()):
    if _dimension != "length" or _name == "in":  # "a square in the town"
        continue
    for _power_of, _power, _scale, _leads, _sign in _POWERS:
        _base = (_power_of, _factor**_power * _scale)
        UNITS |= {f"{lead} {_name}": _base for lead in _leads.split()} | {_name + _sign: _base}

CATEGORIES: dict[str, str] = {}
"""Categorical value words and their category: two different values of one category disagree."""
for _category, _words in {
    "colour": "red green blue yellow black white grey gray brown orange purple pink violet "
    "crimson scarlet maroon navy turquoise silver golden beige teal ochre cream ivory mauve "
    "magenta indigo lilac amber khaki olive cyan lavender burgundy",
    "material": "slate copper stone brick wood wooden timber steel iron concrete glass marble "
    "granite sandstone limestone tin lead thatch bronze brass aluminium aluminum clay tile "
    "tiles plastic oak pine teak larch cedar beech birch elm mahogany walnut bamboo flint "
    "basalt chalk cob terracotta zinc nickel titanium",
    "fuel": "coal diesel petrol gasoline kerosene paraffin peat hydrogen electricity electric "
    "steam battery charcoal oil gas lpg propane methane biodiesel ethanol solar wind nuclear",
}.items():
    CATEGORIES |= dict.fromkeys(_words.split(), _category)

MONTHS = (
    "january february march april may june july august september october november december"
).split()

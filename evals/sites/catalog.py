"""The shop's product catalogue (fixed, so tasks like "the cheapest blue mug" have one right answer)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    name_zh: str
    category: str
    colour: str
    price: float
    description: str

    def title(self, lang: str) -> str:
        return self.name_zh if lang == "zh" else self.name


CATEGORIES = {"mugs": "杯子", "t-shirts": "T恤", "bags": "包", "notebooks": "笔记本", "lamps": "台灯"}
COLOURS = {
    "blue": "蓝色",
    "red": "红色",
    "green": "绿色",
    "black": "黑色",
    "white": "白色",
    "yellow": "黄色",
}
SWATCH = {
    "blue": "#2b6cb0",
    "red": "#c53030",
    "green": "#2f855a",
    "black": "#111",
    "white": "#fff",
    "yellow": "#ecc94b",
}

PRODUCTS: tuple[Product, ...] = (
    Product(
        "classic-blue-mug",
        "Classic Blue Mug",
        "经典蓝色马克杯",
        "mugs",
        "blue",
        12.99,
        "A sturdy 350 ml stoneware mug.",
    ),
    Product(
        "navy-travel-mug",
        "Navy Travel Mug",
        "藏青旅行杯",
        "mugs",
        "blue",
        18.50,
        "Insulated steel, keeps coffee hot for 6 hours.",
    ),
    Product(
        "sky-blue-espresso-mug",
        "Sky Blue Espresso Mug",
        "天蓝浓缩咖啡杯",
        "mugs",
        "blue",
        7.25,
        "A small 90 ml porcelain cup.",
    ),
    Product(
        "ocean-blue-mug-xl",
        "Ocean Blue Mug XL",
        "海蓝特大马克杯",
        "mugs",
        "blue",
        15.00,
        "A 500 ml mug for serious tea drinkers.",
    ),
    Product(
        "red-enamel-mug", "Red Enamel Mug", "红色搪瓷杯", "mugs", "red", 9.99, "Camping-style enamel mug."
    ),
    Product(
        "white-porcelain-mug",
        "White Porcelain Mug",
        "白色瓷杯",
        "mugs",
        "white",
        6.49,
        "Plain white, dishwasher safe.",
    ),
    Product(
        "green-ceramic-mug",
        "Green Ceramic Mug",
        "绿色陶瓷杯",
        "mugs",
        "green",
        11.75,
        "Hand-glazed ceramic mug.",
    ),
    Product(
        "black-logo-tshirt",
        "Black Logo T-Shirt",
        "黑色标志T恤",
        "t-shirts",
        "black",
        19.99,
        "100% cotton, printed Kite logo.",
    ),
    Product(
        "white-basic-tshirt",
        "White Basic T-Shirt",
        "白色基础T恤",
        "t-shirts",
        "white",
        14.99,
        "Everyday crew-neck tee.",
    ),
    Product(
        "blue-striped-tshirt",
        "Blue Striped T-Shirt",
        "蓝色条纹T恤",
        "t-shirts",
        "blue",
        22.00,
        "Breton stripes.",
    ),
    Product(
        "red-sports-tshirt",
        "Red Sports T-Shirt",
        "红色运动T恤",
        "t-shirts",
        "red",
        24.50,
        "Breathable running shirt.",
    ),
    Product(
        "canvas-tote-bag",
        "Canvas Tote Bag",
        "帆布托特包",
        "bags",
        "white",
        16.00,
        "Heavy canvas, long handles.",
    ),
    Product(
        "black-backpack", "Black Backpack", "黑色双肩包", "bags", "black", 59.00, "20 litres, laptop sleeve."
    ),
    Product(
        "yellow-rain-bag",
        "Yellow Rain Bag",
        "黄色防雨包",
        "bags",
        "yellow",
        34.90,
        "Waterproof roll-top bag.",
    ),
    Product(
        "green-messenger-bag",
        "Green Messenger Bag",
        "绿色邮差包",
        "bags",
        "green",
        45.00,
        "Waxed cotton messenger bag.",
    ),
    Product(
        "dotted-notebook-a5",
        "Dotted Notebook A5",
        "A5点阵笔记本",
        "notebooks",
        "black",
        8.99,
        "160 pages, dotted grid.",
    ),
    Product(
        "blue-lined-notebook",
        "Blue Lined Notebook",
        "蓝色横线笔记本",
        "notebooks",
        "blue",
        5.99,
        "96 pages, lined.",
    ),
    Product(
        "red-pocket-notebook",
        "Red Pocket Notebook",
        "红色口袋笔记本",
        "notebooks",
        "red",
        4.50,
        "Fits in a shirt pocket.",
    ),
    Product(
        "desk-lamp-white",
        "White Desk Lamp",
        "白色台灯",
        "lamps",
        "white",
        39.99,
        "LED, three brightness levels.",
    ),
    Product(
        "yellow-reading-lamp",
        "Yellow Reading Lamp",
        "黄色阅读灯",
        "lamps",
        "yellow",
        27.00,
        "Clip-on reading lamp.",
    ),
    Product(
        "black-floor-lamp", "Black Floor Lamp", "黑色落地灯", "lamps", "black", 89.00, "150 cm, warm light."
    ),
)

BY_ID = {p.id: p for p in PRODUCTS}


def search(query: str = "", category: str = "", colour: str = "", sort: str = "") -> list[Product]:
    """Filter and sort the catalogue like the shop page does. Query matches English and Chinese names."""
    words = query.lower().split()
    found = [
        p
        for p in PRODUCTS
        if (not category or p.category == category)
        and (not colour or p.colour == colour)
        and all(
            w
            in f"{p.name} {p.name_zh} {p.category} {CATEGORIES[p.category]} {p.colour} {COLOURS[p.colour]} {p.description}".lower()
            for w in words
        )
    ]
    if sort == "price-asc":
        found.sort(key=lambda p: p.price)
    elif sort == "price-desc":
        found.sort(key=lambda p: -p.price)
    elif sort == "name":
        found.sort(key=lambda p: p.name)
    return found

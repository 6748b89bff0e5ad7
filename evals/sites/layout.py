"""Shared page chrome and the English/Chinese strings of the server-rendered shop and account pages."""

from __future__ import annotations

from kite_browser.evals.sites.variants import Variant
from kite_browser.evals.sites.web import esc

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "shop": "Kite Shop",
        "account": "Account",
        "cart": "Cart",
        "search": "Search",
        "search_placeholder": "Search products",
        "all_categories": "All categories",
        "all_colours": "All colours",
        "sort": "Sort by",
        "sort_relevance": "Featured",
        "sort_price_asc": "Price: low to high",
        "sort_price_desc": "Price: high to low",
        "sort_name": "Name",
        "no_results": "No products match your search.",
        "results": "{n} products",
        "quantity": "Quantity",
        "add_to_cart": "Add to cart",
        "added": "Added {qty} × {name} to your cart.",
        "view_cart": "View cart",
        "in_stock": "In stock",
        "your_cart": "Your cart",
        "cart_empty": "Your cart is empty.",
        "update": "Update",
        "remove": "Remove",
        "total": "Total",
        "checkout": "Proceed to checkout",
        "continue": "Continue shopping",
        "checkout_title": "Checkout",
        "shipping": "Shipping details",
        "full_name": "Full name",
        "address": "Address",
        "email": "Email",
        "payment": "Payment",
        "card_name": "Name on card",
        "card_number": "Card number",
        "card_expiry": "Expiry (MM/YY)",
        "card_cvc": "CVC",
        "place_order": "Place order",
        "fix_errors": "Please fix the following errors:",
        "order_placed": "Thank you! Your order has been placed.",
        "order_number": "Order number",
        "login": "Log in",
        "logout": "Log out",
        "register": "Register",
        "create_account": "Create account",
        "password": "Password",
        "confirm_password": "Confirm password",
        "agree_terms": "I agree to the terms of service",
        "invalid_login": "Invalid email or password.",
        "signed_in_as": "Signed in as",
        "settings": "Settings",
        "display_name": "Display name",
        "newsletter": "Send me the newsletter",
        "language": "Language",
        "save": "Save changes",
        "saved": "Settings saved.",
        "delete_account": "Delete account",
        "delete_intro": "Deleting your account removes your profile, orders and settings.",
        "delete_start": "Delete my account",
        "delete_warning": "This cannot be undone.",
        "delete_confirm_label": "Type your email address to confirm",
        "delete_permanently": "Permanently delete",
        "cancel": "Cancel",
        "deleted": "Your account has been deleted.",
        "welcome": "Welcome",
        "no_account": "No account yet?",
        "have_account": "Already have an account?",
        "registered": "Your account has been created. Welcome!",
        "orders": "Your orders",
    },
    "zh": {
        "shop": "Kite 商城",
        "account": "账户",
        "cart": "购物车",
        "search": "搜索",
        "search_placeholder": "搜索商品",
        "all_categories": "全部分类",
        "all_colours": "全部颜色",
        "sort": "排序",
        "sort_relevance": "推荐",
        "sort_price_asc": "价格从低到高",
        "sort_price_desc": "价格从高到低",
        "sort_name": "名称",
        "no_results": "没有找到匹配的商品。",
        "results": "共 {n} 件商品",
        "quantity": "数量",
        "add_to_cart": "加入购物车",
        "added": "已将 {qty} × {name} 加入购物车。",
        "view_cart": "查看购物车",
        "in_stock": "有货",
        "your_cart": "我的购物车",
        "cart_empty": "购物车是空的。",
        "update": "更新",
        "remove": "删除",
        "total": "合计",
        "checkout": "去结算",
        "continue": "继续购物",
        "checkout_title": "结算",
        "shipping": "收货信息",
        "full_name": "姓名",
        "address": "地址",
        "email": "电子邮箱",
        "payment": "支付信息",
        "card_name": "持卡人姓名",
        "card_number": "卡号",
        "card_expiry": "有效期 (MM/YY)",
        "card_cvc": "安全码",
        "place_order": "立即支付",
        "fix_errors": "请修正以下错误：",
        "order_placed": "谢谢！您的订单已提交。",
        "order_number": "订单号",
        "login": "登录",
        "logout": "退出登录",
        "register": "注册",
        "create_account": "注册",
        "password": "密码",
        "confirm_password": "确认密码",
        "agree_terms": "我同意服务条款",
        "invalid_login": "邮箱或密码错误。",
        "signed_in_as": "当前登录",
        "settings": "设置",
        "display_name": "显示名称",
        "newsletter": "订阅新闻邮件",
        "language": "语言",
        "save": "保存",
        "saved": "设置已保存。",
        "delete_account": "删除账户",
        "delete_intro": "删除账户将移除您的资料、订单和设置。",
        "delete_start": "删除我的账户",
        "delete_warning": "此操作不可恢复。",
        "delete_confirm_label": "请输入您的邮箱地址以确认",
        "delete_permanently": "永久删除",
        "cancel": "取消",
        "deleted": "您的账户已被删除。",
        "welcome": "欢迎",
        "no_account": "还没有账户？",
        "have_account": "已有账户？",
        "registered": "账户已创建，欢迎！",
        "orders": "我的订单",
    },
}

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1d3557;color:#fff;padding:10px 24px;display:flex;gap:20px;align-items:center}
header a{color:#fff;text-decoration:none} header .brand{font-weight:bold;font-size:1.2em;margin-right:auto}
main{max-width:960px;margin:20px auto;padding:0 24px}
.products{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:16px;padding:0;list-style:none}
.product{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:50%;border:1px solid #999;vertical-align:middle}
.price{font-weight:bold;color:#2a7d2a}
.notice{background:#e6f4ea;border:1px solid #8c8;padding:8px 12px;border-radius:4px}
.errors{background:#fdecea;border:1px solid #e99;padding:8px 12px;border-radius:4px;color:#900}
.warning{color:#b00;font-weight:bold}
form.stack label{display:block;margin:10px 0 4px} form.stack input[type=text],form.stack input[type=email],
form.stack input[type=password]{width:320px;padding:6px}
button{padding:6px 14px;cursor:pointer} button.primary{background:#e63946;color:#fff;border:0;border-radius:4px}
table{border-collapse:collapse} td,th{padding:6px 10px;border-bottom:1px solid #ddd;text-align:left}
"""


def t(lang: str, key: str, **fmt: object) -> str:
    text = STRINGS.get(lang, STRINGS["en"])[key]
    return text.format(**fmt) if fmt else text


def prefix(lang: str) -> str:
    """URL prefix of a language: '' for English, '/zh' for Chinese."""
    return "/zh" if lang == "zh" else ""


def page(
    lang: str, title: str, body: str, cart_count: int = 0, user: str | None = None, v: Variant | None = None
) -> str:
    v = v or Variant()
    p = prefix(lang)
    html_lang = "zh-CN" if lang == "zh" else "en"
    account = (
        f'<a id="account-link" href="{p}/account/">{esc(user)}</a>'
        if user
        else f'<a id="login-link" href="{p}/account/login">{t(lang, "login")}</a>'
    )
    other = "/" + ("" if lang == "zh" else "zh/")
    cart = v.word(lang, "cart", t(lang, "cart"))
    links = [
        f'<a id="cart-link" href="{p}/shop/cart">{cart} (<span id="cart-count">{cart_count}</span>)</a>',
        account,
        f'<a id="lang-link" href="{other}" hreflang="{"en" if lang == "zh" else "zh"}">{"English" if lang == "zh" else "中文"}</a>',
    ]
    nav = links[0] + "\n" + "".join(links[1:]) if v.n == 0 else "\n".join(v.order(links, "header"))
    return f"""<!doctype html>
<html lang="{html_lang}"><head><meta charset="utf-8"><title>{esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>
<body><header><a class="brand" href="{p}/shop/">{t(lang, "shop")}</a>
{nav}</header>
<main>{body}</main></body></html>"""

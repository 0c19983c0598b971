"""Reading a page as a player sees it (the tests' helpers for HTML)."""

from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _Shown(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []
        self.depth = 0  # inside an element drawn `hidden`: how many elements deep

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in VOID
        elif any(name == "hidden" for name, _ in attrs):
            self.depth = tag not in VOID
        else:
            self.out.append(self.get_starttag_text() or "")

    def handle_startendtag(self, tag, attrs):
        if not self.depth and not any(name == "hidden" for name, _ in attrs):
            self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= tag not in VOID
        else:
            self.out.append(f"</{tag}>")

    def handle_data(self, data):
        if not self.depth:
            self.out.append(data)

    def handle_entityref(self, name):
        self.handle_data(f"&{name};")

    def handle_charref(self, name):
        self.handle_data(f"&#{name};")


def shown(html: str) -> str:
    """The page less every element drawn `hidden` (the hand form draws every question a hand
    could ask, hiding and disabling those its shape does not ask) and less its data blocks."""
    parser = _Shown()
    parser.feed(html)
    parser.close()
    text = "".join(parser.out)
    start = text.find('<script type="application/json" id="twin-data">')
    if start >= 0:
        text = text[:start] + text[text.index("</script>", start) + len("</script>") :]
    return text

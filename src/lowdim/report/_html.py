"""The self-contained HTML page: images embedded as data URIs, no external resources."""

import base64
import html
import io

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem auto; max-width: 1200px;
       color: #222; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.sub { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.8rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 1rem; }
figure { margin: 0; } figure img { width: 100%; height: auto; border: 1px solid #eee; }
figure.narrow { max-width: 720px; }
figcaption { text-align: center; color: #444; font-size: 0.9rem; }
.note { color: #666; font-size: 0.85rem; }
.print-only { display: none; }
@media print { .print-only { display: grid; } .lowdim-explorer { display: none; } }
"""


def figure_uri(fig):
    """A matplotlib figure as a ``data:image/png;base64`` URI (the figure is closed)."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def table(header, rows):
    """An HTML table from a header and rows of already formatted cells (escaped here)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def figure(uri, caption, *, narrow=False):
    """An embedded image with its caption; ``narrow`` caps the width (single plots)."""
    cls = ' class="narrow"' if narrow else ""
    text = html.escape(caption)
    return f'<figure{cls}><img src="{uri}" alt="{text}"><figcaption>{text}</figcaption></figure>'


def bullets(items):
    """A list of text items, escaped."""
    return "<ul>" + "".join(f"<li>{html.escape(str(item))}</li>" for item in items) + "</ul>"


def page(title, subtitle, sections):
    """The whole document; ``sections`` are (heading, html body) pairs."""
    parts = [f"<h2>{html.escape(h)}</h2>\n{body}" for h, body in sections]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f'<h1>{html.escape(title)}</h1><p class="sub">{html.escape(subtitle)}</p>'
        + "\n".join(parts)
        + "</body></html>\n"
    )

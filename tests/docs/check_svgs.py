#!/usr/bin/env python3
"""The diagrams of docs/ (docs/diagrams/diagrams.py) are what their source
draws, and each is plain SVG that GitHub's web view renders: well-formed XML
with an svg root, a size and a viewBox, no script, no event handler, no
external reference (font, image, stylesheet) and only generic font families.

    check_svgs.py SOURCE_DIR"""
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"
FAMILIES = {"sans-serif", "serif", "monospace"}


def problems(path):
    found = []
    root = ET.parse(path).getroot()
    if root.tag != SVG + "svg":
        found.append("the root is not <svg>")
    for attribute in ("width", "height", "viewBox"):
        if attribute not in root.attrib:
            found.append(f"<svg> has no {attribute}")
    for element in root.iter():
        tag = element.tag.replace(SVG, "")
        if tag in ("script", "foreignObject", "image", "style", "a"):
            found.append(f"<{tag}> element")
        for name, value in element.attrib.items():
            if name.lower().startswith("on"):
                found.append(f"event handler {name}")
            if "href" in name and not value.startswith("#"):
                found.append(f"external reference {value}")
            if name == "font-family" and value not in FAMILIES:
                found.append(f"font family {value} (not generic)")
            if "url(" in value and "url(#" not in value:
                found.append(f"external url in {name}")
    return found


def main():
    source = Path(sys.argv[1])
    status = subprocess.run([sys.executable, str(source / "docs" / "diagrams" / "diagrams.py"), "--check"]).returncode
    svgs = sorted((source / "docs").glob("*.svg"))
    if len(svgs) < 4:
        print(f"check_svgs: {len(svgs)} SVGs in docs/, expected the 4 diagrams")
        status = 1
    for path in svgs:
        found = problems(path)
        print(f"{path.name}: {'ok' if not found else '; '.join(found)}")
        status |= bool(found)
    return status


if __name__ == "__main__":
    sys.exit(main())

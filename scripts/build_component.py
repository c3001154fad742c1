"""Write ``citation_core/components/chips/component.js``, the chip component module, from its sources.

Run after editing ``citation_parser.js``, ``chip_model.js`` or ``chips.js`` (``make component``);
``tests/test_chip_component_files.py`` fails while the built file is older than its sources.
"""

from __future__ import annotations

from citation_core.lms.chips import ASSET_DIR, COMPONENT_JS_FILE, build_component_js


def main() -> None:
    target = ASSET_DIR / COMPONENT_JS_FILE
    target.write_text(build_component_js(), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()

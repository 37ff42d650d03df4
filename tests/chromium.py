"""A headless Chromium for browser tests: Debian's ``chromium`` and ``chromium-driver``, driven
through Selenium (Playwright's own browser downloads are not used)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

__all__ = ["REQUIRE_VARIABLE", "SCREENSHOTS_VARIABLE", "headless_chromium"]

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
REQUIRE_VARIABLE = "CADRE_REQUIRE_BROWSER"
"""Set (as CI does), a missing browser fails the test instead of skipping it."""
SCREENSHOTS_VARIABLE = "CADRE_SCREENSHOTS"
"""A folder browser tests save their screenshots in (default: their temporary folder)."""


@contextmanager
def headless_chromium() -> Iterator[WebDriver]:
    """A headless Chromium, 1280 pixels wide, quit after the block; the test is skipped (or,
    with ``$CADRE_REQUIRE_BROWSER``, failed) when Debian's packages are not installed."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        if os.environ.get(REQUIRE_VARIABLE):
            pytest.fail("Debian's chromium and chromium-driver are not installed")
        pytest.skip("no headless Chromium (apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()

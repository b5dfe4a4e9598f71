"""The frozen site in a real browser: Debian's headless Chromium driven by chromedriver.

The site is served over HTTP on 127.0.0.1 (a random port), the version switcher is populated
by the theme's JavaScript from ``switcher.json``, and choosing 0.1.0 must land on 0.1.0's page.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.docs_project import REPO_ROOT, Frozen

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
SCREENSHOTS = REPO_ROOT / "build" / "docs-browser"

requires_chromium = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed "
    "(apt-get install chromium chromium-driver; .ci/run installs them)",
)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(frozen: Frozen) -> Iterator[str]:
    """The frozen site over HTTP; yields its base URL."""
    assert all(run.returncode == 0 for run in frozen.runs), [r.stderr for r in frozen.runs]
    handler = functools.partial(QuietHandler, directory=str(frozen.project.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1280,900",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


@requires_chromium
def test_switcher_lists_both_versions_and_navigates_to_the_chosen_one(
    served: str, browser: object
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import WebDriverWait

    assert isinstance(browser, WebDriver)
    wait = WebDriverWait(browser, 30)
    browser.get(f"{served}/0.2.0/guide.html")
    assert "How to use Beta." in browser.find_element(By.TAG_NAME, "body").text

    # The theme fetches ../switcher.json and fills the menu; wait for it.
    entries = ".version-switcher__menu a[data-version]"
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, entries)) >= 2)
    listed = {
        a.get_attribute("data-version") for a in browser.find_elements(By.CSS_SELECTOR, entries)
    }
    assert listed == {"0.1.0", "0.2.0"}
    button = next(
        b
        for b in browser.find_elements(By.CSS_SELECTOR, ".version-switcher__button")
        if b.is_displayed()
    )
    assert button.text == "0.2.0 (stable)"

    button.click()
    choice = wait.until(
        lambda d: next(
            (
                a
                for a in d.find_elements(By.CSS_SELECTOR, f"{entries}[data-version='0.1.0']")
                if a.is_displayed()
            ),
            False,
        )
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOTS / "switcher-open.png"))
    choice.click()

    wait.until(lambda d: d.current_url == f"{served}/0.1.0/guide.html")
    wait.until(lambda d: "How to use Alpha." in d.find_element(By.TAG_NAME, "body").text)
    assert "demo 0.1.0" in browser.title
    wait.until(
        lambda d: (
            next(
                (
                    b.text
                    for b in d.find_elements(By.CSS_SELECTOR, ".version-switcher__button")
                    if b.is_displayed()
                ),
                "",
            )
            == "0.1.0"
        )
    )
    assert browser.save_screenshot(str(SCREENSHOTS / "after-choosing-0.1.0.png"))
    assert (SCREENSHOTS / "after-choosing-0.1.0.png").stat().st_size > 0


@pytest.fixture(scope="session")
def own_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository's own pages, with its theme and CSS, built once per run (session-scoped:
    under xdist the module's tests need not run in a row). The API reference (two hundred
    autodoc pages, most of the build's time) is left out: these tests judge how the wide
    generated tables read, and the `docs` gate of `release_verify` builds the whole site with
    warnings as errors (so this build is not strict: the index's toctree names the API)."""
    from mlrelease.docs import sphinx_run

    out = tmp_path_factory.mktemp("own-docs")
    result = sphinx_run.build(
        REPO_ROOT / "docs",
        out / "html",
        strict=False,
        overrides={"exclude_patterns": "_build,Thumbs.db,.DS_Store,api/**"},
        log=out / "html.log",
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0, (out / "html.log").read_text(encoding="utf-8")[-3000:]
    return out / "html"


WIDE_PAGES = ("release/checklist", "release/exit-criteria", "perf/report", "indices/supported_ops")
"""Pages made of wide generated tables."""

LAYOUT = r"""
const rect = (el) => el ? el.getBoundingClientRect() : null;
const overlap = (a, b) => a && b && a.right > b.left && b.right > a.left
    && a.bottom > b.top && b.bottom > a.top;
const brand = rect(document.querySelector('.navbar-brand'));
const links = [...document.querySelectorAll('.navbar-header-items .nav-link')].map(rect);
const sidebar = document.querySelector('.bd-sidebar-primary');
// A cell of four words or more whose every word sits on a line of its own.
const wordPerLine = (cell) => {
    const words = cell.innerText.trim().split(/\s+/).length;
    if (words < 4) return false;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const style = getComputedStyle(cell);
    const line = parseFloat(style.lineHeight) || 1.5 * parseFloat(style.fontSize);
    return Math.round(range.getBoundingClientRect().height / line) >= words;
};
const tables = [...document.querySelectorAll('.bd-article table')].map((t) => ({
    overflow: t.scrollWidth - t.parentElement.clientWidth,
    wordPerLine: [...t.querySelectorAll('td')].filter(wordPerLine).map((c) => c.innerText),
}));
return {
    titleHitsNavbar: links.some((l) => overlap(brand, l)),
    emptySidebar: !!sidebar && sidebar.offsetWidth > 0 && !sidebar.innerText.trim()
        .replace('Section Navigation', '').trim(),
    tables: tables,
};
"""


@requires_chromium
@pytest.mark.parametrize("page", WIDE_PAGES)
def test_wide_pages_read_well_at_1400_px(own_site: Path, browser: object, page: str) -> None:
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    browser.set_window_size(1400, 1000)
    browser.get((own_site / f"{page}.html").as_uri())
    # The theme's scripts still rearrange the page after the load event: measure once settled
    # (a page that never shows a table fails the assertion below).
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    with contextlib.suppress(TimeoutException):
        WebDriverWait(browser, 15).until(
            lambda d: (
                d.execute_script("return document.readyState") == "complete"
                and d.execute_script(LAYOUT)["tables"]
            )
        )
    layout = browser.execute_script(LAYOUT)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOTS / f"{page.replace('/', '_')}-1400.png"))
    assert not layout["titleHitsNavbar"], "the site title overlaps the navbar's links"
    assert not layout["emptySidebar"], "an empty left sidebar takes the width"
    assert layout["tables"], f"{page} has no table"
    for number, table in enumerate(layout["tables"], 1):
        assert table["overflow"] <= 1, f"table {number} is clipped by {table['overflow']} px"
        assert not table["wordPerLine"], f"table {number}: one word per line in {table}"

"""kraken-view's page in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright, against the real server started by the test.

Without Chromium or the playwright package these tests are skipped, unless the environment
says they are required (``KRAKEN_BROWSER_TESTS=1``, set by ``.ci/run``, which installs
Chromium): then they fail.  ``KRAKEN_CHROMIUM`` names another Chromium binary."""

from __future__ import annotations

import json
import math
import os
import pathlib
import signal
import urllib.parse
import urllib.request

import pytest
from test_view import DATA, start_server

from kraken_solver import Deal, Searcher, card_str, solve
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import cards_of
from kraken_solver.notation.dealfile import parse_deal_text
from kraken_solver.notation.reader import parse_deal_file
from kraken_solver.view.page import export_page
from kraken_solver.view.session import BoardSolver

CHROMIUM = os.environ.get("KRAKEN_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("KRAKEN_BROWSER_TESTS") == "1"
# as root in a container: no sandbox, no GPU, and no calls home (the network is closed)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-quic", "--disable-default-apps", "--disable-extensions"]
TIMEOUT_MS = 60_000


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@pytest.fixture(scope="module")
def browser():
    why = _missing()
    if why:
        if REQUIRED:
            pytest.fail(f"the browser tests are required here (KRAKEN_BROWSER_TESTS=1): {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def deal_file(tmp_path_factory):
    """Two deals: a full deal with its trump, and a part-played one."""
    f = tmp_path_factory.mktemp("view") / "deals.txt"
    lines = (DATA / "many_deals.txt").read_text().splitlines()
    first = next(ln for ln in lines if ln.startswith(("N:", "E:", "S:", "W:")))
    f.write_text(first + "\n" + (DATA / "part_played.txt").read_text())
    return f


@pytest.fixture(scope="module")
def server(deal_file):
    proc, url = start_server(str(deal_file), "--quiet")
    yield url
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def wait_ready(pg, played=(), deal=None, view=None):
    """Wait until the page shows the values of the position after ``played`` (of ``deal``,
    PBN text, when given; in ``view``, "double-dummy" or "player", when given)."""
    where = "" if deal is None else f'[data-deal="{Deal.from_pbn(deal)}"]'
    if view is not None:
        where += f'[data-view="{view}"]'
    pg.wait_for_selector(f'#board[data-values="ready"][data-played="{" ".join(played)}"]{where}')


def shown_values(pg) -> dict:
    return pg.eval_on_selector_all(
        ".hand [data-value]", "els => Object.fromEntries(els.map(e => "
        "[e.dataset.card, Number(e.dataset.value)]))")


def shown_hint(pg) -> dict:
    """card -> (data-value, data-hint-mean, data-hint-se, data-hint-p-made) of the hand cards."""
    return pg.eval_on_selector_all(
        ".hand [data-value]", "els => Object.fromEntries(els.map(e => [e.dataset.card, "
        "[Number(e.dataset.value), e.dataset.hintMean === undefined ? null : "
        "Number(e.dataset.hintMean), Number(e.dataset.hintSe), Number(e.dataset.hintPMade)]]))")


def best_shown(pg) -> list:
    return sorted(pg.eval_on_selector_all(".hand .card.best", "els => els.map(e => e.dataset.card)"))


def hand_cards(pg) -> dict:
    return pg.evaluate("""() => Object.fromEntries(['N','E','S','W'].map(s => [s,
        Array.from(document.querySelectorAll(`[data-seat="${s}"] [data-card]`)).map(e => e.dataset.card)]))""")


def test_the_page_shows_the_deal(page, server, deal_file):
    spec = parse_deal_file(deal_file)[0]
    page.goto(server)
    wait_ready(page)
    hands = hand_cards(page)
    assert sum(len(h) for h in hands.values()) == 32
    for seat, cards in hands.items():
        assert sorted(cards) == sorted(card_str(c) for c in cards_of(spec.deal.hands["NESW".index(seat)]))
    assert page.locator("[data-card]").count() == 32        # nothing on the table yet
    assert "first" in page.inner_text(f'[data-seat="{"NESW"[spec.first]}"] .seat-label')
    # two deals in the file: a list to pick from
    assert page.locator("#deals li").count() == 2


def test_values_follow_the_clicks_undo_and_a_shared_link(page, browser, server, deal_file):
    spec = parse_deal_file(deal_file)[0]
    searcher = Searcher()

    def reference(played, objective="score"):
        return solve(spec.deal, spec.trump, spec.first, rules=spec.rules, played=list(played),
                     objective=objective, all_cards=True, pv=False, searcher=searcher)

    page.goto(server)
    played = []
    seen = []
    wait_ready(page, played)
    for step in range(3):
        ref = reference(played)
        assert shown_values(page) == ref.card_values, f"after {played}"
        assert best_shown(page) == sorted(ref.best_cards)
        seen.append(dict(ref.card_values))
        # play a card that is not the first best one, to leave the principal variation
        legal = list(ref.card_values)
        card = legal[-1] if step % 2 == 0 else legal[0]
        page.click(f'.hand [data-card="{card}"]')
        played.append(card)
        wait_ready(page, played)
    ref = reference(played)
    assert shown_values(page) == ref.card_values
    seen.append(dict(ref.card_values))
    # the points toggle shows the points values
    page.click("#show-points")
    wait_ready(page, played)
    assert shown_values(page) == reference(played, "points").card_values
    page.click("#show-score")
    wait_ready(page, played)
    # undo restores the earlier positions' values, redo comes back
    page.click("#btn-undo")
    wait_ready(page, played[:2])
    assert shown_values(page) == seen[2]
    assert sum(len(h) for h in hand_cards(page).values()) == 30
    page.keyboard.press("ArrowLeft")
    wait_ready(page, played[:1])
    assert shown_values(page) == seen[1]
    page.click("#btn-redo")
    wait_ready(page, played[:2])
    assert shown_values(page) == seen[2]
    page.click("#btn-start")
    wait_ready(page, [])
    assert shown_values(page) == seen[0]
    page.click("#btn-end")
    wait_ready(page, played)
    # jump to any card of the line
    page.click('[data-line-card]:nth-child(3)')     # the second card (after the leader)
    wait_ready(page, played[:2])
    assert shown_values(page) == seen[2]
    page.click("#btn-end")
    wait_ready(page, played)
    # a copied link reproduces the position in a fresh browser
    link = page.url
    assert "play=" in link and "deal=" in link and "trump=" in link and "first=" in link
    other = browser.new_context(viewport={"width": 1000, "height": 800}).new_page()
    other.goto(link)
    wait_ready(other, played)
    assert shown_values(other) == seen[3]
    assert hand_cards(other) == hand_cards(page)
    other.context.close()


def test_best_line_plays_to_the_end(page, server, deal_file):
    spec = parse_deal_file(deal_file)[0]
    value = solve(spec.deal, spec.trump, spec.first, rules=spec.rules).value
    page.goto(server)
    wait_ready(page)
    page.click("#btn-best")
    page.wait_for_function("document.querySelector('#board').dataset.played.split(' ').length"
                           " === 32")
    assert page.inner_text("#verdict .big") == f"{value:+d}"
    assert page.locator(".hand [data-card]").count() == 0
    assert page.locator("#sheet tr.final").count() == 1


def test_part_played_deal_from_the_list(page, server, deal_file):
    spec = parse_deal_file(deal_file)[1]
    page.goto(server)
    wait_ready(page)
    page.click("#deals li:nth-child(2) button")
    played = [card_str(c) for c in spec.played]
    wait_ready(page, played)
    ref = solve(spec.deal, spec.trump, spec.first, rules=spec.rules, played=played,
                all_cards=True, pv=False)
    assert shown_values(page) == ref.card_values
    # two cards of trick 3 on the table, the rest in the hands
    assert page.locator("#felt [data-card]").count() == 2
    assert page.locator(".hand [data-card]").count() == 32 - len(played)


def test_bad_pbn_shows_the_error_and_a_good_one_loads(page, server):
    bad = "N:AKQJ.T98.7.A KQ.J98.T7.KQ 9.KQJ.AQ.JT9 T87.A7.KJ98.7 trump=H"
    with pytest.raises(KrakenError) as e:
        parse_deal_text(bad, "the pasted text")
    page.goto(server)
    wait_ready(page)
    page.click("#btn-edit")
    page.fill("#paste", bad)
    page.click("#paste-load")
    page.wait_for_selector("#paste-error:not([hidden])")
    assert page.inner_text("#paste-error") == str(e.value)
    small = "N:AT.T.8. 9.A.A.K K.K.KT. ..7.AT7"       # a deal of 4 cards a hand
    page.fill("#paste", small + " trump=H first=N")
    page.click("#paste-load")
    wait_ready(page, deal=small)
    assert page.locator(".hand [data-card]").count() == 16
    assert shown_values(page) == solve(small, "H", "N", all_cards=True, pv=False).card_values


def test_deal_by_clicking(page, server):
    page.goto(server)
    wait_ready(page)
    before = page.get_attribute("#board", "data-deal")
    page.click("#btn-edit")
    page.click("#tab-click")
    page.click("#deal-clear")
    # N takes the four aces, then the rest at random; the deal must load and be valued
    for card in ("SA", "HA", "DA", "CA"):
        page.click(f'[data-deal-card="{card}"]')
    page.click("#deal-random")
    page.select_option("#deal-trump", "S")
    page.click("#deal-use")
    page.wait_for_function(f"document.querySelector('#board').dataset.deal !== '{before}'")
    wait_ready(page)
    hands = hand_cards(page)
    assert {"SA", "HA", "DA", "CA"} <= set(hands["N"]) and all(len(h) == 8 for h in hands.values())
    assert "trump=S" in page.url


def test_exported_page_needs_no_network(browser, tmp_path):
    specs = parse_deal_file(DATA / "part_played.txt")
    spec = specs[0]
    page_file = tmp_path / "page.html"
    page_file.write_text(export_page(specs, BoardSolver(), source="part_played.txt"))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    asked = []

    def block(route):
        asked.append(route.request.url)
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            route.abort()
    context.route("**/*", block)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(page_file.as_uri())
    played = [card_str(c) for c in spec.played]
    wait_ready(pg, played)
    ref = solve(spec.deal, spec.trump, spec.first, played=played, all_cards=True, pv=False)
    assert shown_values(pg) == ref.card_values
    pg.click("#btn-undo")
    wait_ready(pg, played[:-1])
    assert shown_values(pg) == solve(spec.deal, spec.trump, spec.first, played=played[:-1],
                                     all_cards=True, pv=False).card_values
    pg.click("#btn-end")            # to the end of the line (the best line after the play)
    pg.wait_for_function("document.querySelector('#board').dataset.played.split(' ').length"
                         " === 32")
    value = solve(spec.deal, spec.trump, spec.first, played=played).value
    assert pg.inner_text("#verdict .big") == f"{value:+d}"
    assert asked == [page_file.as_uri()], asked
    assert not errors
    context.close()


def test_no_sideways_scrolling(page, server):
    """At a phone's width and a laptop's, the page fits: nothing sticks out sideways."""
    page.goto(server)
    wait_ready(page)
    for width, height in ((390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        right = page.eval_on_selector_all("[data-card]", "els => Math.max(...els.map(e => "
                                          "e.getBoundingClientRect().right))")
        assert right <= width, (width, right)


SMALL = "N:AT.T.8. 9.A.A.K K.K.KT. ..7.AT7"       # 4 cards a hand


def test_player_view_toggle(page, server):
    """For positions reached by clicking, with 3 cards a hand and fewer (exact hints), the page
    shows hint()'s means, standard errors (0), P(made) and best cards of the player to move,
    says what that player can see and over how many layouts; a click with the view on shows
    the next position's hint, the points toggle the mean points, and the double-dummy toggle
    gives the double-dummy values back."""
    from kraken_solver.playerview.hint import hint

    page.goto(server + "?" + urllib.parse.urlencode({"deal": SMALL, "trump": "H", "first": "N"}))
    played = []
    wait_ready(page, played, deal=SMALL, view="double-dummy")
    for _ in range(4):                   # one trick: 3 cards a hand
        ref = solve(SMALL, "H", "N", played=played, all_cards=True, pv=False)
        card = sorted(ref.card_values)[0]
        page.click(f'.hand [data-card="{card}"]')
        played.append(card)
        wait_ready(page, played, view="double-dummy")
    dd = solve(SMALL, "H", "N", played=played, all_cards=True, pv=False)
    assert shown_values(page) == dd.card_values
    # no values of the other view: read in the click's own task (the page renders "solving"
    # at once; read after the click has returned, a fast hint could already be shown)
    assert page.evaluate("""() => { document.querySelector('#show-hint').click();
                                    return document.querySelector('#board').dataset.values; }"""
                         ) == "solving"

    def check(played, objective="score"):
        wait_ready(page, played, view="player")
        h = hint(SMALL, "H", "N", played=played, objective=objective, workers=1)
        assert h.exact and h.layouts > 1
        shown = shown_hint(page)
        if h.forced:        # the only legal card: named, not valued (no layout solved)
            assert list(shown) == h.best and shown[h.best[0]][1] is None
            text = page.inner_text("#hint-box")
            assert "is the only legal card; nothing to choose, no layout solved" in text
            assert "forced" in page.inner_text("#verdict")
            return h
        assert {c: v[1] for c, v in shown.items()} == \
            {c: e.to_dict()["mean"] for c, e in h.cards.items()}
        # the whole point on the card is the mean sent (2 decimals) rounded, halves up
        assert {c: v[0] for c, v in shown.items()} == {c: math.floor(e.to_dict()["mean"] + 0.5)
                                                       for c, e in h.cards.items()}
        assert {c: (v[2], v[3]) for c, v in shown.items()} == {
            c: (0, e.to_dict()["p_made"]) for c, e in h.cards.items()}
        assert best_shown(page) == sorted(h.best)
        board = page.locator("#board")
        assert board.get_attribute("data-hint-exact") == "true"
        assert board.get_attribute("data-hint-layouts") == str(h.layouts)
        assert board.get_attribute("data-hint-seat") == h.seat
        assert page.locator("#hint tr[data-hint-card]").count() == len(h.cards)
        text = page.inner_text("#hint-box")
        assert f"{h.seat}'s own hand as dealt" in text and f"all {h.layouts:,} layouts" in text
        assert f"the {len(played)} cards played so far" in text
        assert f"the hand roem declared: N-S {h.declared[0]}, E-W {h.declared[1]}" in text
        return h

    check(played)
    assert "view=player" in page.url
    # with the view on, a click shows the hint of the position it leads to
    h = hint(SMALL, "H", "N", played=played, workers=1)
    card = h.best[0]
    page.click(f'.hand [data-card="{card}"]')
    played.append(card)
    check(played)
    page.click("#show-points")
    check(played, "points")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})
    # back to double dummy: the double-dummy values, and no hint attributes left
    page.click("#show-dd")
    wait_ready(page, played, view="double-dummy")
    assert shown_values(page) == solve(SMALL, "H", "N", played=played, objective="points",
                                       all_cards=True, pv=False).card_values
    assert page.locator("[data-hint-mean]").count() == 0
    assert not page.is_visible("#hint-box") and "view=player" not in page.url
    page.click("#show-score")
    wait_ready(page, played, view="double-dummy")
    assert shown_values(page) == solve(SMALL, "H", "N", played=played, all_cards=True,
                                       pv=False).card_values


def test_a_running_hint_shows_progress_and_a_later_click_stops_it(page, server, deal_file):
    """A long sampled hint (1,000 layouts, asked for by the link) shows its progress; a click
    on a card while it runs cancels it on the server and asks for the next position's hint
    (the usual 200 layouts), of which no stale value is shown; the double-dummy toggle then
    stops that one too (or finds it done) and shows the double-dummy values.  The hint is the
    first lead's, the longest (seconds: 1,000 layouts of the deal's part-played position took
    under a second, so that it could end before the click)."""
    spec = parse_deal_file(deal_file)[1]
    played = []
    cancels = []
    page.on("request", lambda r: cancels.append(json.loads(r.post_data)["job"])
            if r.url.endswith("/api/hint/cancel") else None)

    def job_of(request):
        return urllib.parse.parse_qs(urllib.parse.urlsplit(request.url).query)["job"][0]

    def is_hint(request):
        return urllib.parse.urlsplit(request.url).path == "/api/hint"

    def progress(job):
        q = urllib.parse.urlencode({"job": job, "client": client})
        with urllib.request.urlopen(server + "api/hint/progress?" + q, timeout=30) as r:
            return json.load(r)

    words = {"deal": str(spec.deal), "trump": "SHDC"[spec.trump], "first": "NESW"[spec.first],
             "view": "player", "samples": "1000"}
    with page.expect_request(is_hint) as asked:
        page.goto(server + "?" + urllib.parse.urlencode(words))
    first = job_of(asked.value)
    client = urllib.parse.parse_qs(urllib.parse.urlsplit(asked.value.url).query)["client"][0]
    assert first.startswith(client)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(asked.value.url).query)["samples"] == \
        ["1000"]
    page.wait_for_function("document.querySelector('#busy').textContent.includes('of 1,000 "
                           "layouts')")
    assert page.is_visible("#busy progress") and page.is_visible("#hint-stop")
    assert page.locator(".hand [data-value]").count() == 0
    card = page.eval_on_selector(".hand .card.legal", "e => e.dataset.card")
    with page.expect_request(lambda r: r.url.endswith("/api/hint/cancel")) as cancel, \
            page.expect_request(is_hint) as asked:
        page.click(f'.hand [data-card="{card}"]')
    assert json.loads(cancel.value.post_data) == {"job": first, "client": client}
    second = job_of(asked.value)
    assert second != first and "samples" not in asked.value.url
    played.append(card)
    page.wait_for_function(f"document.querySelector('#board').dataset.played === "
                           f"{json.dumps(' '.join(played))}")
    for _ in range(200):                # the hint thread notes the cancel within moments
        if progress(first)["state"] == "cancelled":
            break
        page.wait_for_timeout(50)
    pr = progress(first)
    assert pr["state"] == "cancelled" and pr["done"] < pr["total"] == 1000
    if page.get_attribute("#board", "data-values") == "solving":
        assert page.locator(".hand [data-value]").count() == 0     # nothing stale meanwhile
    page.click("#show-dd")
    wait_ready(page, played, view="double-dummy")
    assert shown_values(page) == solve(spec.deal, spec.trump, spec.first, rules=spec.rules,
                                       played=played, all_cards=True, pv=False).card_values
    for _ in range(200):
        if progress(second)["state"] in ("cancelled", "done"):
            break
        page.wait_for_timeout(50)
    state = progress(second)["state"]
    assert state == "done" or (state == "cancelled" and second in cancels), (state, cancels)


def test_a_reload_gives_up_the_hint_and_gets_a_new_client(page, server, deal_file):
    """A page reloaded while its hint runs cancels it (pagehide), and the new load asks under a
    client id of its own."""
    spec = parse_deal_file(deal_file)[1]
    words = {"deal": str(spec.deal), "trump": "SHDC"[spec.trump], "first": "NESW"[spec.first],
             "view": "player", "samples": "1000"}

    def asked_words(request):
        return urllib.parse.parse_qs(urllib.parse.urlsplit(request.url).query)

    def is_hint(request):
        return urllib.parse.urlsplit(request.url).path == "/api/hint"

    with page.expect_request(is_hint) as asked:
        page.goto(server + "?" + urllib.parse.urlencode(words))
    first = asked_words(asked.value)
    page.wait_for_function("document.querySelector('#busy').textContent.includes('of 1,000 "
                           "layouts')")
    with page.expect_request(is_hint) as again:
        page.reload()       # the cancel is sent as the page goes (not seen by Playwright)
    assert asked_words(again.value)["client"] != first["client"]
    q = urllib.parse.urlencode({"job": first["job"][0], "client": first["client"][0]})
    for _ in range(200):
        with urllib.request.urlopen(server + "api/hint/progress?" + q, timeout=30) as r:
            pr = json.load(r)
            if pr["state"] == "cancelled":
                break
        page.wait_for_timeout(50)
    else:
        raise AssertionError("the first load's hint was not cancelled")
    # by the page's own cancel (pagehide), not only by its connection closing
    assert pr["why"] == "the page cancelled it"
def test_play_against_the_computer(page, server, tmp_path):
    """/play: the user at S, bots at N, E, W.  The address holds the game id, not the deal;
    no answer the page receives holds a card of a bot's hand before the end; the bots' hands
    are backs, the user's cards are clickable when it is their turn, the hint answers, a
    reload goes on with the game, the game ends with every hand, the score sheet and a link
    that opens the same play on the board; a game the server no longer has says so and offers
    a new game."""
    from test_view_play import hidden_cards_in, known_to_user

    deal = "N:AQ9.AQJ8.8. K8.97.KJ7.8 J7.KT.A.QT9 T..QT9.AKJ7"
    mine = ["SJ", "S7", "HK", "HT", "DA", "CQ", "CT", "C9"]
    shots = pathlib.Path(os.environ.get("KRAKEN_SCREENSHOTS") or tmp_path)   # to look at
    answers = []

    def record(response):
        if "/api/play/" in response.url:
            try:
                answers.append(response.json())
            except Exception:       # noqa: BLE001 - not JSON: the check below fails on it
                answers.append({"not json": response.url})

    page.on("response", record)
    q = urllib.parse.urlencode({"deal": deal, "first": "N", "seat": "S", "seed": "3",
                                "bots": "N=heuristic,E=random,W=heuristic", "double": "2"})
    page.goto(server + "/play?" + q)
    assert page.input_value("#set-deal") == deal and page.input_value("#bot-E") == "random"
    assert page.input_value("#set-double") == "2"
    page.click("#btn-start-game")
    page.wait_for_selector('#board[data-phase="your-turn"]')
    assert "game=" in page.url and "deal=" not in page.url and "AQ9" not in page.url
    assert "double=2" in page.url and "doubled ×2" in page.inner_text("#contract")
    assert page.eval_on_selector_all('[data-seat="N"] [data-card]', "els => els.length") == 0
    assert page.get_attribute('[data-seat="W"] .backs', "data-backs") == "8"
    page.click("#btn-hint")
    page.wait_for_selector("#hint li[data-card]")
    legal = page.eval_on_selector_all('[data-seat="S"] .card.legal',
                                      "els => els.map(e => e.dataset.card)")
    hinted = page.eval_on_selector_all("#hint li[data-card]",
                                       "els => els.map(e => e.dataset.card)")
    assert sorted(legal) == sorted(hinted) or len(hinted) == 1
    n = 0
    while True:
        page.wait_for_selector('#board[data-phase="your-turn"], #board[data-phase="over"]')
        if page.get_attribute("#board", "data-phase") == "over":
            break
        played = page.get_attribute("#board", "data-played")
        page.click('[data-seat="S"] .card.legal >> nth=0')
        n += 1
        page.wait_for_function("p => document.querySelector('#board').dataset.played !== p",
                               arg=played)
        if n == 4:
            page.wait_for_selector('#board[data-phase="your-turn"]')
            page.screenshot(path=str(shots / "play-mid.png"), full_page=True)
            before = page.get_attribute("#board", "data-played")
            page.reload()                   # the game goes on where it was
            page.wait_for_selector(f'#board[data-phase="your-turn"][data-played="{before}"]')
            page.click("#btn-hint")         # the page's id is the same: new job names
            page.wait_for_selector("#hint li[data-card]")
    cards = page.get_attribute("#board", "data-played").split()
    assert len(cards) == 32 and n == 8
    page.screenshot(path=str(shots / "play-end.png"), full_page=True)
    assert page.eval_on_selector_all('[data-seat="N"] [data-card]', "els => els.length") == 8
    final = page.inner_text("#sheet-table")
    assert "Score" in final
    last = answers[-1]
    assert last["phase"] == "over" and [p["card"] for p in last["played"]] == cards
    for a in answers[:-1]:
        assert "deal" not in a and "hands" not in a
        assert hidden_cards_in(a, known_to_user(a, mine), deal) == [], a
    href = page.get_attribute("#review-link", "href")
    assert urllib.parse.parse_qs(href.split("?", 1)[1])["play"][0].split() == cards
    page.click("#review-link")
    page.wait_for_selector(f'#board[data-played="{" ".join(cards)}"]')
    # a game id the server does not have: one line, and the form for a new game
    page.goto(server + "/play?game=no-such-game&seat=S&seed=3")
    page.wait_for_selector("#gone")
    assert "not on the server" in page.inner_text("#verdict")
    assert page.is_visible("#btn-start-game")


def test_play_asks_again_when_the_server_is_busy(page, server):
    """A bot move answered 503 (more requests wait for the bots than the server lets wait):
    the page says so and asks again after Retry-After, and the game goes on."""
    busy = {"left": 1}

    def once_busy(route):
        if busy["left"]:
            busy["left"] -= 1
            route.fulfill(status=503, headers={"Retry-After": "1"},
                          content_type="application/json",
                          body='{"error": "the bots are busy with another move, and 4 other '
                               'requests wait for it already; try again", "field": null}')
        else:
            route.continue_()

    page.route("**/api/play/bot", once_busy)
    q = urllib.parse.urlencode({"first": "N", "seat": "S", "seed": "3",
                                "bots": "N=random,E=random,W=random"})
    page.goto(server + "/play?" + q)
    page.click("#btn-start-game")
    page.wait_for_function("() => document.body.innerText.includes('asking again in 1 s')")
    page.wait_for_selector('#board[data-phase="your-turn"], #board[data-phase="trump"]',
                           timeout=20000)
    assert busy["left"] == 0 and page.get_attribute("#board", "data-phase") == "your-turn"

"""The offline extractor on natural speech: sentences, self-corrections, dates, changes, forget
requests, the user's voice, and the sentence selector."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from freezegun import freeze_time

from everbot_memory.extract.rules import RuleExtractor, judged, statement
from everbot_memory.extract.rules.dates import resolve_date
from everbot_memory.extract.rules.selector import features, load_selector
from everbot_memory.extract.rules.sentences import sentences
from everbot_memory.extract.rules.updates import changed_memories, forget_request
from everbot_memory.extract.rules.wording import about_the_user, corrected


def test_sentences_keep_abbreviations_hosts_versions_and_secrets_whole() -> None:
    said = (
        "Our staging server is staging.acme.io. I'm a nurse at St. Mary's. We're on Python "
        "3.12.1 now. My password is S3cure!Pass and I keep losing it."
    )
    assert sentences(said) == (
        "Our staging server is staging.acme.io.",
        "I'm a nurse at St. Mary's.",
        "We're on Python 3.12.1 now.",
        "My password is [redacted:password] and I keep losing it.",
    )


def test_sentences_leave_out_pasted_code_and_logs() -> None:
    said = "here is the error:\n```\nTraceback (most recent call last):\n  x\n```\nI use pytest."
    assert sentences(said) == ("here is the error:", "I use pytest.")
    assert sentences("我现在不再用 Vue 了，改用 React。提醒我下周一交房租！") == (
        "我现在不再用 Vue 了，改用 React。",
        "提醒我下周一交房租！",
    )


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I'm 34 — 35 actually, as of Tuesday", "I'm 35 as of Tuesday"),
        ("我住12楼，哦不，16楼，刚搬的", "我住16楼，刚搬的"),
        ("我们公司在张江，啊说错了是金桥，地铁站老搞混", "我们公司在金桥，地铁站老搞混"),
        ("my standup is at 9.30 — no, 9.45 since they moved it", "my standup is at 9.45 since"),
        ("I live in Toronto, well no, Mississauga", "I live in Mississauga"),
        ("I have 2 kids, no, 3 kids", "I have 3 kids"),
    ],
)
def test_a_value_corrected_in_passing_keeps_the_later_one(said: str, kept: str) -> None:
    assert corrected(said).startswith(kept)


def test_nothing_to_correct_is_left_as_it_is() -> None:
    assert corrected("I do not like it, but fine") == "I do not like it, but fine"


@pytest.mark.parametrize(
    "said, day",
    [
        ("gotta file the VAT return by the end of the month", date(2026, 4, 30)),
        ("the driving test is booked for the 22nd", date(2026, 4, 22)),
        ("Knee replacement is booked for May 12", date(2026, 5, 12)),
        ("need it back by EOD friday", date(2026, 4, 10)),
        ("his parents are visiting next Saturday", date(2026, 4, 18)),
        ("十天后去面签", date(2026, 4, 18)),
        ("下个月18号结婚", date(2026, 5, 18)),
        ("大后天飞成都", date(2026, 4, 11)),
        ("三个月后复查", date(2026, 7, 8)),
        ("月底前必须搬走", date(2026, 4, 30)),
    ],
)
def test_dates_as_people_write_them(said: str, day: date) -> None:
    assert resolve_date(said, date(2026, 4, 8)) == day  # a Wednesday


def test_a_bare_number_is_not_a_date() -> None:
    assert resolve_date("we upgraded to version 3.12 and it runs fine", date(2026, 4, 8)) is None
    assert resolve_date("I ran 10 km", date(2026, 4, 8)) is None


def test_the_users_voice_is_rewritten_whole_or_quoted() -> None:
    assert about_the_user("ugh I write garbage before 10 lol") == (
        "The user writes garbage before 10."
    )
    assert about_the_user("I don't drink coffee and I go to bed at 10") == (
        "The user doesn't drink coffee and the user goes to bed at 10."
    )
    assert about_the_user("since I moved to Lyon") == "Since the user moved to Lyon."
    # "we" cannot be rewritten without guessing who "we" are: the user's words, quoted.
    assert about_the_user("we only moved up from Lyon in September") == (
        'The user said: "we only moved up from Lyon in September".'
    )
    assert about_the_user("哈哈 我的猫叫年糕") == "用户的猫叫年糕。"
    assert about_the_user("我们下周搬家") == "用户说：“我们下周搬家”"


KNOWN = [
    ("k1", "The user is training for the Berlin Marathon in September."),
    ("k2", "The user prefers dark roast coffee."),
    ("k3", "The user drives a 2014 Honda Civic."),
    ("k4", "用户养了一只柯基，叫豆豆"),
]


@pytest.mark.parametrize(
    "said, target",
    [
        ("oh and you can drop the marathon stuff", "k1"),
        ("that note about the coffee, get rid of it", "k2"),
        ("之前说的豆豆那个事忘了吧", "k4"),
    ],
)
def test_forget_requests_said_naturally(said: str, target: str) -> None:
    assert forget_request(said, KNOWN) == target


def test_a_request_about_the_world_forgets_nothing() -> None:
    assert forget_request("please remove the mold from the shower", KNOWN) is None
    assert forget_request("I ran the Berlin marathon route today", KNOWN) is None


def test_a_change_said_in_passing_names_what_it_replaces() -> None:
    assert changed_memories("sold the Civic last weekend, it's the Ioniq now", KNOWN) == ("k3",)
    assert changed_memories("I still drive the Civic", KNOWN) == ()


def test_the_selector_ships_and_prefers_statements_about_the_user() -> None:
    selector = load_selector()
    assert selector is not None and 0 < selector.threshold < 1
    fact = selector.judge("I'm a nurse on night shifts at the children's hospital.")
    chat = selector.judge("can you make the font bigger?")
    assert fact.probability > chat.probability
    assert "cue:request" in features("can you make the font bigger?")
    assert "cue:first-person" in features("我在杭州工作")


def _close(lines: list[str], known: str = "") -> list[tuple[str, str, bool, tuple[str, ...]]]:
    messages = [{"role": "user", "content": line} for line in lines]
    with freeze_time(datetime(2026, 4, 8, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, known)
    return [(c.category, c.content, c.forget, c.contradicts) for c in found]


def test_natural_conversation_end_to_end() -> None:
    found = _close(
        [
            "ugh can you push the standup reminder to 10:30?",
            "I have a dentist appointment tomorrow at 3pm.",
            "Also my password is hunter2!x, don't lose it.",
            "sold the Civic last weekend!",
            "you can drop the marathon stuff, tore my ACL",
        ],
        "\n".join(f"[{i}] {c}" for i, c in KNOWN),
    )
    categories = {category for category, *_ in found}
    assert "todo" in categories
    todo = next(f for f in found if f[0] == "todo")
    assert "dentist" in todo[1]
    assert not any("hunter2" in content for _, content, _, _ in found)
    assert any(forget and "Marathon" in content for _, content, forget, _ in found)
    assert any(contradicts == ("k3",) for *_, contradicts in found)
    assert not any("standup reminder" in content for _, content, _, _ in found)  # a request


EVERYDAY_KNOWN = "\n".join(
    [
        "[k1] The user drinks coffee every morning.",
        "[k2] The user works from the office on Mondays.",
        "[k3] The user uses Python for data analysis.",
        "[k4] 用户每天喝咖啡",
    ]
)


@pytest.mark.parametrize(
    "said",
    [
        "I always forget that coffee is bad for my sleep, haha.",
        "I left my umbrella at the office yesterday.",
        "Can you show me how to remove duplicates in Python? I used to do it with loops.",
        "我老是忘记咖啡喝多了会失眠的事。",
    ],
)
def test_everyday_speech_forgets_and_retires_nothing(said: str) -> None:
    for _, content, forget, contradicts in _close([said], EVERYDAY_KNOWN):
        assert not forget, content
        assert contradicts == (), content


@pytest.mark.parametrize(
    "said, expected",
    [
        ("I moved from Lyon to Paris last month.", "The user lives in Paris."),
        (
            "I no longer work at Google, I joined Meta.",
            "The user no longer works at Google, the user joined Meta.",
        ),
        (
            "My wife and I live in Denver with our two dogs.",
            'The user said: "My wife and I live in Denver with our two dogs".',
        ),
        ("I work at Google — sorry, at DeepMind.", "The user works at DeepMind."),
    ],
)
def test_memories_are_worded_whole(said: str, expected: str) -> None:
    assert [content for _, content, _, _ in _close([said])] == [expected]


def test_a_memory_that_says_nothing_once_the_subject_is_gone_is_not_kept() -> None:
    assert _close(["Can you explain what a Python decorator is? I always forget."]) == []


def test_short_sentences_with_numbers_are_prose_not_code() -> None:
    for said in (
        "我今年35岁。",
        "我住在1502室。",
        "I am 35.",
        "My flight is CA1234 on 2026-12-05.",
    ):
        assert sentences(said) == (said,)
    for code in (
        "x = foo(1)",
        "KeyError: 'id'",
        "npm ERR! code E404",
        "  at Object.<anon> (/a.js:3:9)",
    ):
        assert sentences(code) == ()


def test_prose_opening_with_a_code_keyword_is_prose() -> None:
    for said in (
        "from now on answer me in Spanish please.",
        "let me know when it ships.",
        "class starts at 9 tomorrow.",
        "return the jacket by friday.",
    ):
        assert sentences(said) == (said,)
    for code in (
        "from distutils.util import strtobool",
        "import pandas as pd",
        "def strtobool(v: str) -> bool:",
        "const res = await fetch(URL);",
        "class Foo:",
        "return x",
    ):
        assert sentences(code) == ()


def test_a_todo_keeps_its_day_when_the_user_named_it_relatively() -> None:
    [(category, content, _, _)] = _close(["I have a dentist appointment tomorrow at 3pm."])
    assert category == "todo" and content.endswith("(2026-04-09).")
    [(_, request, _, _)] = _close(["I need to renew my passport next Thursday, please remind me."])
    assert "remind" not in request and "2026-04-16" in request


@pytest.mark.parametrize(
    "said, known, expected",
    [
        (
            "We moved from Lyon to Paris in September.",
            "[k1] The user lives in Lyon.",
            "The user lives in Paris.",
        ),
        (
            "I left Shopify in December, I'm at Stripe now on the payments team.",
            "[k1] The user works at Shopify.",
            "The user works at Stripe on the payments team.",
        ),
        (
            "I no longer use Vue anymore, switched to React last spring.",
            "[k1] The user uses Vue.",
            "The user no longer uses Vue and switched to React last spring.",
        ),
        (
            "我已经从字节离职了，下个月去腾讯报到",
            "[k1] 用户在字节跳动工作",
            "用户从字节离职了，下个月去腾讯报到",
        ),
        ("上个月从北京搬到深圳了", "[k1] 用户住在北京", "用户住在深圳"),
    ],
)
def test_a_change_said_naturally_replaces_the_known_value(
    said: str, known: str, expected: str
) -> None:
    found = _close([said], known)
    assert [(content, contradicts) for _, content, _, contradicts in found] == [(expected, ("k1",))]


@pytest.mark.parametrize(
    "lines, expected",
    [
        (
            ["I'm based in Toronto. Well, technically Mississauga."],
            "The user is based in Mississauga.",
        ),
        (
            ["I'm a nurse on night shifts at St. Mary's."],
            "The user is a nurse on night shifts at St. Mary's.",
        ),
    ],
)
def test_a_correction_in_the_next_sentence_keeps_the_later_value(
    lines: list[str], expected: str
) -> None:
    assert [content for _, content, _, _ in _close(lines)] == [expected]


def test_a_sentence_that_starts_anew_is_no_correction() -> None:
    found = _close(["I work at Google. Actually, Microsoft bought our team last year."])
    assert not any(
        "Microsoft bought" in content and "work" in content for _, content, _, _ in found
    )


def test_todos_without_the_request_to_the_assistant() -> None:
    [(category, content, _, _)] = _close(["提醒我下周一给房东转房租"])
    assert (category, content) == ("todo", "用户下周一给房东转房租（2026-04-13）")
    [(category, content, _, _)] = _close(["帮我列个提纲吧，明天下午要给领导汇报"])
    assert category == "todo" and "帮" not in content and "列个提纲" not in content
    [(category, content, _, _)] = _close(["note that the car needs its MOT by June 14"])
    assert category == "todo" and "MOT" in content


@pytest.mark.parametrize(
    "said",
    [
        "今晚谁去吃火锅",
        "I left Shopify in December.",
        "我们公司报销要在每个月25号之前在飞书上提交",
        "I go climbing every Tuesday at 7.",
    ],
)
def test_questions_habits_and_bare_months_are_not_todos(said: str) -> None:
    assert not any(category == "todo" for category, *_ in _close([said]))


def test_a_forget_request_finds_a_memory_that_writes_a_number_beside_the_word() -> None:
    said = "之前说考研那个事你忘了吧，不考了，直接找工作"
    assert forget_request(said, [("k1", "用户准备今年12月考研"), ("k2", "用户是大四学生")]) == "k1"


def test_the_selector_judges_what_the_user_states_not_what_they_ask() -> None:
    assert (
        statement("帮我改下简历，我做了五年的测试，现在想转开发")
        == "我做了五年的测试，现在想转开发"
    )
    assert statement("我在自学日语，N3 刚过，给我出几道 N2 的语法题") == "我在自学日语，N3 刚过"
    said = "translate this please, my German is still terrible after two years in Vienna"
    assert statement(said) == "my German is still terrible after two years in Vienna"
    assert statement("I live in Lyon.") == "I live in Lyon."


@pytest.mark.parametrize(
    "said, expected",
    [
        ("I don't eat meat and my friend is vegan.", "The user doesn't eat meat."),
        ("我不吃香菜", "用户不吃香菜"),
    ],
)
def test_what_the_user_does_not_eat(said: str, expected: str) -> None:
    assert [(c, content) for c, content, _, _ in _close([said])] == [("preference", expected)]


def test_requests_and_questions_are_not_judged() -> None:
    for said in ("write me a workout plan.", "Go 里 slice 传进函数 append 了外面为啥看不到"):
        assert not judged(said)


SINGLE_VALUED = [
    ("k1", "The user uses VS Code as their main editor."),
    ("k2", "The user lives in London."),
    ("k3", "The user uses an iPhone 13."),
    ("k4", "The user works at Shopify."),
    ("k5", "用户住在杭州余杭区"),
]


@pytest.mark.parametrize(
    "said, retired",
    [
        ("since I moved to neovim last month my wrists are way happier", ("k1",)),
        ("how do I move my 2FA codes from my old iPhone to the new Pixel 9?", ("k3",)),
        ("hello from Nairobi! we moved here in the spring for my job", ("k2",)),
        ("I joined Stripe last week", ("k4",)),
        ("人也跟着搬到北京了，住望京", ("k5",)),
        ("I moved the meeting to 3pm", ()),
        ("I left my umbrella at the office", ()),
        ("I use vim for quick edits", ()),
        ("I love my iPhone", ()),
    ],
)
def test_a_new_value_of_a_single_valued_fact_retires_the_old(
    said: str, retired: tuple[str, ...]
) -> None:
    assert changed_memories(said, SINGLE_VALUED) == retired


def test_a_forget_request_may_point_back_at_the_sentence_before() -> None:
    known = (
        "[k1] The user goes to the gym Monday, Wednesday and Friday at 6am.\n"
        "[k2] The user likes podcasts about history."
    )
    found = _close(
        ["stop reminding me about the gym. just delete that whole thing, I do yoga at home now"],
        known,
    )
    assert [content for _, content, forget, _ in found if forget] == [
        "The user goes to the gym Monday, Wednesday and Friday at 6am."
    ]


def test_more_date_shapes() -> None:
    today = date(2026, 3, 10)
    assert resolve_date("my visa interview is on 3/20 at the consulate", today) == date(2026, 3, 20)
    assert resolve_date("add 1/2 cup of milk", today) is None
    assert resolve_date("五一去青岛", today) == date(2026, 5, 1)
    assert resolve_date("I left in December", today) is None
    assert resolve_date("strength training 3x a week", today) is None
    assert resolve_date("by the end of June", today) == date(2026, 6, 30)


def test_an_explicit_note_with_a_day_and_a_time_is_a_todo() -> None:
    [(category, content, _, _)] = _close(["帮我记下：下周二晚上8点给我爸打视频"])
    assert category == "todo" and "帮" not in content and "2026-04-14" in content


def test_a_question_is_quoted_never_half_rewritten() -> None:
    assert about_the_user("how do I move my codes to the new Pixel 9?") == (
        'The user asked: "how do I move my codes to the new Pixel 9?"'
    )
    assert (
        about_the_user("when I was a kid I lived in Oslo")
        == "When the user was a kid the user lived in Oslo."
    )


def test_a_day_gone_by_is_no_todo_and_a_name_is_capitalized() -> None:
    today = date(2026, 2, 1)
    assert resolve_date("the heating has been broken since Monday", today) is None
    assert resolve_date("I'm 35 as of Tuesday", today) is None
    assert resolve_date("see you Tuesday", today) == date(2026, 2, 3)
    assert _close(["my partner is allergic to shellfish"]) == []  # "allergic" is no name
    assert next(c for _, c, _, _ in _close(["I'm a nurse and I work nights."])) == (
        "The user is a nurse."
    )


@pytest.mark.parametrize(
    "said",
    [
        "Now, how do I find which deployment owns this replicaset.",
        "Any tips for turning it into a real side project.",
        "Hypothetically, if I got a PhD in math, what jobs could I do.",
    ],
)
def test_questions_and_hypotheticals_without_a_mark_are_not_judged(said: str) -> None:
    assert not judged(said)


def test_a_lasting_change_and_a_habitual_taste() -> None:
    assert not any(c == "todo" for c, *_ in _close(["跟大家同步下，我从下周起改成远程"]))
    [(category, content, _, _)] = _close(["I always prefer CTEs over nested subqueries."])
    assert (category, content) == ("preference", "The user prefers CTEs over nested subqueries.")


@pytest.mark.parametrize(
    "said, expected",
    [
        (
            "I'm on the Android team at Kestrel Pay.",
            "The user is on the Android team at Kestrel Pay.",
        ),
        ("I have two kids under five.", "The user has two kids under five."),
        ("I'm 35.", "The user is 35 years old."),
        ("I speak Portuguese at home.", "The user speaks Portuguese at home."),
        ("我有两个孩子，老大七岁", "用户有两个孩子，老大七岁"),
        ("我会说粤语", "用户会说粤语"),
    ],
)
def test_plain_facts_about_the_user(said: str, expected: str) -> None:
    assert [content for _, content, _, _ in _close([said])] == [expected]


def test_i_have_something_else_is_no_fact() -> None:
    assert _close(["I have a question about taxes."]) == []


def test_asking_to_put_it_on_the_list_makes_the_sentence_before_a_todo() -> None:
    found = _close(
        ["my passport expires in august and I keep forgetting to renew it. add it to my list?"]
    )
    assert [(c, content) for c, content, _, _ in found] == [
        ("todo", "The user's passport expires in august and the user keeps forgetting to renew it.")
    ]


def test_the_users_voice_in_lower_case_and_after_adverbs() -> None:
    assert about_the_user("i need podcast recs") == "The user needs podcast recs."
    assert about_the_user("I still haven't got the invoices") == (
        "The user still hasn't got the invoices."
    )


def test_a_login_written_out_keeps_no_password() -> None:
    said = "they gave me the login, user pta.treasurer / pass Lincoln!Elem2019. how do I export"
    assert not any("Lincoln" in part for part in sentences(said))


@pytest.mark.parametrize(
    "said",
    [
        "my coworker just told me he's quitting to open a bakery",
        "我妹刚搬去成都了",
        "笑死，我们楼下那家烧烤店老板离婚了",
        "我朋友想去新西兰打工度假",
    ],
)
def test_news_about_someone_else_is_not_judged(said: str) -> None:
    assert not judged(said)


def test_a_todo_leaves_out_the_request_after_it() -> None:
    [(category, content, _, _)] = _close(["明天下午三点要去见个客户，帮我准备几个开场的问题"])
    assert category == "todo" and "开场" not in content and "帮" not in content


def test_a_todo_says_what_to_do_not_only_when() -> None:
    assert _close(["周五中午提醒一下吧"]) == []
    assert _close(["remind me tomorrow at 9"]) == []
    [(category, content, _, _)] = _close(["明天交房租"])
    assert (category, content) == ("todo", "用户明天交房租（2026-04-09）")


def test_a_change_retires_only_what_its_own_clause_names() -> None:
    known = [("k1", "用户住在上海浦东"), ("k2", "用户喜欢周末去看展")]
    said = "杭州周末有啥好看的展吗，上个月刚从上海搬过来，还不太熟"
    assert changed_memories(said, known) == ("k1",)


@pytest.mark.parametrize(
    "said, retired",
    [
        ("紧张死了，下个月18号结婚，婚礼流程还一团乱", ("k1",)),
        ("we got engaged last weekend!", ("k1",)),
        ("since I defended in December and started the postdoc at EPFL", ("k2",)),
        ("我已经毕业了，在找工作", ("k2",)),
        ("my sister is getting married in June", ()),
        ("我朋友下个月结婚，我当伴郎", ()),
        ("my students graduated today", ()),
    ],
)
def test_a_later_stage_of_life_ends_the_earlier(said: str, retired: tuple[str, ...]) -> None:
    known = [("k1", "用户目前单身"), ("k2", "The user is a PhD student at ETH Zurich.")]
    assert changed_memories(said, known) == retired


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        # The subject chat leaves out is the speaker's.
        ("Sold my old Corolla last week", "The user sold their old Corolla last week."),
        ("Signed up for my first triathlon", "The user signed up for their first triathlon."),
        ("Love my new standing desk", "The user loves their new standing desk."),
        # After "the user" as the subject, "my" reads "their"; elsewhere "the user's".
        ("I walk my neighbour's dog", "The user walks their neighbour's dog."),
        ("Priya fixed my bike for me", "Priya fixed the user's bike for the user."),
        # A name that ends like a past tense is a subject, not a verb without one.
        ("Alfred is my landlord", "Alfred is the user's landlord."),
        ("Jared moved my desk", "Jared moved the user's desk."),
    ],
)
def test_the_users_voice_reads_as_one_clean_sentence(said: str, memory: str) -> None:
    assert about_the_user(said) == memory


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        # A filler taken off leaves the verb in lower case: still the user's.
        ("sprained my wrist climbing", "The user sprained their wrist climbing."),
        ("broke my phone screen again", "The user broke their phone screen again."),
        # A state, not an act, takes "is".
        ("Exhausted after my night shifts", "The user is exhausted after their night shifts."),
        ("based in Porto with my partner", "The user is based in Porto with their partner."),
        ("Used to swim at my old club", "The user used to swim at their old club."),
    ],
)
def test_a_dropped_subject_in_lower_case_or_before_a_state(said: str, memory: str) -> None:
    assert about_the_user(said) == memory


@pytest.mark.parametrize(
    "said, kept",
    [
        (
            "i've been in leipzig for about 3 weeks, sorry, dresden — leipzig is where i "
            "interviewed",
            "i've been in dresden for about 3 weeks",
        ),
        (
            "my go-to is the blue line, oops, red line lol, blue is the one at my old place",
            "my go-to is the red line",
        ),
        ("we adopted a beagle, sorry, basset - beagle was my parents' dog", "we adopted a basset"),
    ],
)
def test_a_value_corrected_in_lower_case_is_the_one_named_again_after_it(
    said: str, kept: str
) -> None:
    assert corrected(said) == kept


@pytest.mark.parametrize(
    "said",
    [
        # A date's words are the dates' to correct, not a name's.
        "the form is due april 30, no wait that's january, the april 30 thing is the appeal",
        # No value after the slip, and nothing named again: nothing replaced.
        "i work with rust, sorry, my cat walked on the keyboard",
    ],
)
def test_lower_case_words_after_a_slip_change_nothing_unless_the_old_one_is_named(
    said: str,
) -> None:
    assert corrected(said) == said


def test_a_correction_in_lower_case_in_the_next_sentence_keeps_the_later_value() -> None:
    from everbot_memory.extract.rules.wording import joined_corrections

    assert joined_corrections(
        ["officially in tacoma now.", "wait no, olympia lol, tacoma was the one we lost."]
    ) == ["officially in olympia now."]
    assert joined_corrections(
        ["i lead the osprey team now.", "sorry not osprey, kestrel — osprey is the sister team."]
    ) == ["i lead the kestrel team now."]
    # An apology that opens something else is no correction.
    said = ["i moved to paris.", "sorry, i need help with my code."]
    assert joined_corrections(said) == said


@pytest.mark.parametrize(
    "said",
    [
        "the car's in the shop till next tuesday so they gave me a loaner",
        "landed in vancouver, the conference runs until thursday",
        "four analysts reporting to me now, starting monday",
        "i swim at lunch mon/wed/fri now instead of running",
        "我现在只有周二周四去公司",
    ],
)
@freeze_time("2026-04-08 09:00:00")
def test_a_state_with_a_day_or_a_weekly_schedule_is_no_todo(said: str) -> None:
    assert all(category != "todo" for category, _, _, _ in _close([said]))


@freeze_time("2026-04-08 09:00:00")
def test_something_due_by_a_day_stays_a_todo_beside_a_state_until_then() -> None:
    found = _close(["my accountant needs the tax documents by friday and I'm away until then"])
    assert [category for category, _, _, _ in found] == ["todo"]


def test_what_the_user_says_inside_a_role_play_is_the_roles() -> None:
    found = _close(
        [
            "来 你扮演面试官面我 我就假装自己有五年B端产品经验",
            "我会先看数据 然后按客户规模和行业拆分 看流失集中在哪一类",
            "ok stop the roleplay. I actually live in Osaka.",
        ]
    )
    assert [content for _, content, _, _ in found] == ["The user lives in Osaka."]


@pytest.mark.parametrize(
    "said, category",
    [
        # "我之前" is "before now", not a deadline.
        ("这周一开始在后端组了 我之前只写过python的测试脚本", "fact"),
        ("周五之前还得把报价单发出去", "todo"),
        # From then on: a state, not a day's task.
        ("快过年了 今年开始我吃素 回老家我妈肯定一桌子肉", "fact"),
    ],
)
def test_chinese_before_and_from_now_on(said: str, category: str) -> None:
    assert [c for c, _, _, _ in _close([said])][:1] == [category]


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I actually live in Osaka", "The user lives in Osaka."),
        ("i'm currently based in Leeds", "The user is based in Leeds."),
    ],
)
def test_words_that_only_colour_a_statement_do_not_hide_it(said: str, kept: str) -> None:
    assert [content for _, content, _, _ in _close([said])] == [kept]


@pytest.mark.parametrize(
    "said",
    [
        "朗逸上周卖了 现在开Model 3 单踏板还在适应",
        "sold the golf last month and these days I cycle to work",
    ],
)
def test_a_story_that_ends_in_how_things_are_now_is_a_fact(said: str) -> None:
    assert [c for c, _, _, _ in _close([said])][:1] == ["fact"]


def test_a_list_of_things_to_do_keeps_each_item() -> None:
    found = _close(
        ["errands for this week: renew the car tax, book a haircut, and drop off the library books"]
    )
    todos = [content for category, content, _, _ in found if category == "todo"]
    assert len(todos) == 3
    assert all(any(w in t for t in todos) for w in ("car tax", "haircut", "library"))


@pytest.mark.parametrize(
    "said, kept, gone",
    [
        ("老婆下周三出差 我还得周四去开家长会 早餐吃啥方便", "家长会", "出差"),
        (
            "my flatmate has her exam tuesday, also I have to renew my passport by friday",
            "passport",
            "exam",
        ),
    ],
)
def test_a_plan_of_a_clause_of_its_own_and_not_someone_elses(
    said: str, kept: str, gone: str
) -> None:
    todos = [content for category, content, _, _ in _close([said]) if category == "todo"]
    assert any(kept in t for t in todos) and not any(gone in t for t in todos)


@pytest.mark.parametrize(
    "said",
    ["my roommate has her driving test friday and is freaking out", "同事下周二要去体检"],
)
def test_someone_elses_appointment_is_no_todo_of_the_users(said: str) -> None:
    assert all(category != "todo" for category, _, _, _ in _close([said]))


def test_a_relatives_event_the_user_goes_to_is_theirs() -> None:
    found = _close(["我表姐婚礼是下周六 份子钱一般给多少"])
    assert any(category == "todo" and "婚礼" in content for category, content, _, _ in found)


@pytest.mark.parametrize(
    "lines, kept",
    [
        # Left without a word of leaving it, by thanking for it.
        (
            [
                "let's roleplay: you're a barista in Madrid, I'm a customer",
                "hola, I'd like a cortado please",
                "ok thanks, that was helpful. anyway I live in Denver.",
            ],
            "Denver",
        ),
        # Only mentioned, never set up.
        (["my kids are obsessed with roleplay games lately", "I live in Boston."], "Boston"),
    ],
)
def test_a_role_play_ends_or_never_began(lines: list[str], kept: str) -> None:
    assert any(kept in content for _, content, _, _ in _close(lines))


def test_a_list_of_things_to_do_leaves_out_what_is_done_or_someone_elses() -> None:
    found = _close(["chores: called the bank, the kids did the dishes, feed the cat, or maybe not"])
    todos = [content for category, content, _, _ in found if category == "todo"]
    assert todos == ["Feed the cat."]


def test_the_users_part_of_a_plan_told_of_someone_else_is_kept() -> None:
    found = _close(["my boss wants the report by friday, i need to finish the slides"])
    assert any(c == "todo" and "slides" in content for c, content, _, _ in found)
    found = _close(["my roommate has her driving test friday, any tips i can pass along?"])
    assert all(c != "todo" for c, _, _, _ in found)


def test_a_slip_named_again_with_another_word_of_the_sentence_changes_nothing() -> None:
    said = "i live in denver with my wife, oops, boulder, my wife works in denver"
    assert corrected(said) == said


def test_a_message_of_one_word_over_and_over_is_read_in_one_pass() -> None:
    # Read in every way it could be cut, "lol lol lol ..." took seconds at 24 words and
    # doubled with each one more: a chat message must not stall a hook.
    from everbot_memory.extract.rules.extractor import _own_words

    said = " ".join(["lol"] * 80)
    assert _own_words(said) == said
    assert _close([said]) == []


@pytest.mark.parametrize(
    "said",
    [
        "I have exams mon/wed/fri next week",
        "I'll be in Tokyo until June 3, remember my flight home is that day",
    ],
)
def test_days_of_one_week_or_a_day_to_remember_stay_todos(said: str) -> None:
    assert [c for c, _, _, _ in _close([said])][:1] == ["todo"]


@pytest.mark.parametrize(
    "said, memory",
    [
        (
            "hosting 6 people saturday, but as a vegetarian i'm obviously not doing the meat "
            "version lol",
            "The user is a vegetarian.",
        ),
        (
            "as a type 1 diabetic what snacks are safe for a long hike",
            "The user is a type 1 diabetic.",
        ),
        ("作为一个素食者 想做个麻婆豆腐 不放肉末的话会不会很寡淡啊", "用户是素食者。"),
    ],
)
def test_who_the_user_is_said_as_the_standpoint_of_a_question(said: str, memory: str) -> None:
    found = [content for _, content, _, _ in _close([said])]
    assert memory in found
    assert not any(c.startswith("As a") for c in found)  # the question itself is no memory


@pytest.mark.parametrize(
    "said",
    [
        "as a kid i was a vegetarian for a year",
        "as a nurse, my wife works nights",
        "what should I do in the first week as a new homeowner",
        "purely hypothetically, if i moved to canada, as a nurse would express entry be faster",
        "如果作为一个程序员 你会怎么选",
        # A part given to the assistant, someone else's, or one played for a moment.
        "as a lawyer, what would you advise here?",
        "my brother, as a pilot, flies every week",
        "你现在作为一名营养师 给我制定一个食谱",
        "我老公作为一个程序员 天天加班",
        "作为第三者 我不好说",
        "作为消费者我觉得这个不合理",
    ],
)
def test_a_standpoint_of_another_time_person_or_supposition_is_not_the_users(said: str) -> None:
    found = [content for _, content, _, _ in _close([said])]
    assert not any(c.startswith(("The user is a", "用户是")) for c in found), found


def test_a_line_with_code_quoted_inline_is_still_read() -> None:
    said = (
        'also ruff is yelling at me about `fmt = lambda x: f"{x:,.0f}"` (E731). whats the '
        "clean way? i always run black and ruff before i push so i cant just ignore it"
    )
    found = _close([said])
    assert any("black and ruff" in content for _, content, _, _ in found)
    assert sentences("`x = 1`") == ()  # nothing but code


def test_signing_up_is_an_experience_and_a_request_for_a_plan_is_no_memory() -> None:
    found = _close(["i signed up for the brooklyn half, it's in may"])
    assert ("experience", "The user signed up for the brooklyn half.") in [
        (category, content) for category, content, _, _ in found
    ]
    assert _close(["need a gluten free meal prep plan for the week."]) == []


def test_a_sentence_ending_in_me_u_or_ok_ends_there() -> None:
    # The cutting reads "me.", "u." and "ok." as abbreviations (Maine, an initial, Oklahoma).
    said = "so proud of u. yes sunday works for me. heads up i'm allergic to bees"
    assert sentences(said) == (
        "so proud of u.",
        "yes sunday works for me.",
        "heads up i'm allergic to bees",
    )
    assert sentences("The U.S. army is big.") == ("The U.S. army is big.",)


@pytest.mark.parametrize(
    "said, memory",
    [
        (
            "i teach 4th grade and need to email parents about our field trip on march 12.",
            "The user teaches 4th grade.",
        ),
        # An abbreviation is no verb to inflect ("the user wfhs").
        (
            "i wfh full time now so i can take the dishes every day",
            "The user wfh full time now so the user can take the dishes every day.",
        ),
    ],
)
def test_the_users_news_after_a_reaction_and_before_a_task(said: str, memory: str) -> None:
    assert memory in [content for _, content, _, _ in _close([said])]


@pytest.mark.parametrize(
    "said",
    ["i signed up for spam by accident", "i signed up for a free trial and forgot to cancel"],
)
def test_signing_up_for_a_newsletter_or_a_trial_is_no_experience(said: str) -> None:
    assert not any(category == "experience" for category, _, _, _ in _close([said]))


def test_a_request_for_a_document_keeps_what_the_user_says_after_it() -> None:
    found = _close(["i need a bio for my website, i'm a freelance photographer based in bristol"])
    assert any("photographer" in content for _, content, _, _ in found)


def test_code_in_backticks_is_not_rewritten_about_the_user() -> None:
    assert about_the_user("i always write `for i in items:` instead of indexing") == (
        "The user always writes `for i in items:` instead of indexing."
    )

"""The offline extractor on wordings written apart from the labeled corpora: spoken date
shapes, what a todo is (a day to come, not today's news), the kind of a memory from its
grammar, changed values said naturally, and the user's voice with a compound subject."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

import pytest
from freezegun import freeze_time

from everbot_memory.core.candidate import Candidate
from everbot_memory.extract.rules import RuleExtractor, judged, statement
from everbot_memory.extract.rules.dates import resolve_date
from everbot_memory.extract.rules.extractor import _selected_category
from everbot_memory.extract.rules.updates import changed_memories
from everbot_memory.extract.rules.wording import about_the_user, corrected, third_person

TODAY = date(2026, 4, 8)  # a Wednesday


def _extracted(lines: list[str], known: str = "") -> list[Candidate]:
    """The candidates of the user's ``lines``, said on TODAY, with ``known`` memories."""
    messages = [{"role": "user", "content": line} for line in lines]
    with freeze_time(datetime(2026, 4, 8, 12, tzinfo=timezone.utc)):
        return RuleExtractor().extract(messages, known)


def _close(lines: list[str], known: str = "") -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.category, c.content, c.contradicts) for c in _extracted(lines, known)]


def _retired(said: str, known: str) -> list[tuple[str, ...]]:
    """What each memory found in ``said`` retires, the known memory ``[k1] known`` given."""
    return [contradicts for *_, contradicts in _close([said], f"[k1] {known}")]


@pytest.mark.parametrize(
    "said, day",
    [
        ("dentist appt thurs 3:30", date(2026, 4, 9)),
        ("the plumber comes tues morning", date(2026, 4, 14)),
        ("mom's bday dinner is sat night", date(2026, 4, 11)),
        ("parents land on sun at 6", date(2026, 4, 12)),
        ("the review is on Thursday the 23rd", date(2026, 4, 23)),
        ("my visa runs out mid-May", date(2026, 5, 15)),
        # Several days: the memory lasts until the last of them is past.
        ("leave starts May 4 and I'm out until mid-July", date(2026, 7, 15)),
        ("pay the deposit by friday, and the lease is signed on the 20th", date(2026, 4, 20)),
        ("下周一交材料 然后月底前把尾款结了", date(2026, 4, 30)),
    ],
)
def test_shortened_weekdays_a_weekday_with_its_date_and_mid_month(said: str, day: date) -> None:
    assert resolve_date(said, TODAY) == day


@pytest.mark.parametrize(
    "said",
    [
        "been on Helix for about six weeks now",
        "I've been running for two weeks",
        "after months of back and forth we gave up",
        "I sat down with the landlord",
        "the sun was out all day",
        "开学第一周天天加班",
    ],
)
def test_how_long_and_words_that_look_like_days_name_no_day(said: str) -> None:
    assert resolve_date(said, TODAY) is None


@pytest.mark.parametrize(
    "said",
    [
        "omg PASSED my driving test today, third try",
        "Today I'm just resting on the couch",
        "Sunday nights I batch cook for the whole week",
        "mondays are always back to back meetings for me",
        "I do deep work mon to wed mornings",
        "国庆想出去玩，我最讨厌人挤人",
    ],
)
def test_news_of_today_habits_and_tastes_are_not_todos(said: str) -> None:
    assert not any(category == "todo" for category, *_ in _close([said]))


@pytest.mark.parametrize(
    "said",
    [
        "I have to call the bank today before they close",
        "今晚九点跟美国那边开季度会，我要讲十分钟",
        "明晚八点有个面试，面试官据说很喜欢问系统设计",
    ],
)
def test_a_todo_of_today_needs_something_to_do_or_a_time_and_someone_elses_taste_is_no_taste(
    said: str,
) -> None:
    assert any(category == "todo" for category, *_ in _close([said]))


@pytest.mark.parametrize(
    "said, fitted, category",
    [
        # A state that holds from a day on is a fact, told as a story or with its day to come.
        ("我们上个月从成都搬到重庆了", "fact", "fact"),
        ("starting at Ramp on June 3rd as a finance ops lead", "todo", "fact"),
        ("btw you have my birthday wrong, it's May 13 not May 3", "todo", "fact"),
        # ... unless something is still to be done for it.
        ("I need to pack before we move to Berlin next month", "todo", "todo"),
        # A taste said by what the user cannot bear or always picks; someone else's is a fact.
        ("honestly I can't do podcasts longer than 30 minutes", "fact", "preference"),
        ("坐高铁我永远选靠窗", "fact", "preference"),
        ("我家柯基最近不爱吃狗粮", "preference", "fact"),
        # How the user wants to be answered, the time said after.
        ("can you answer in Spanish from now on", "fact", "preference"),
        # A habit said after the deed; a decision not yet made is none.
        ("I do my grocery run every Sunday morning at the farmers market", "fact", "workflow"),
        ("我每天晚上睡前都会背半小时单词", "fact", "workflow"),
        ("I still haven't decided whether to renew the lease", "fact", "fact"),
        ("我对 redis 比较熟", "preference", "skill_usage"),
    ],
)
def test_a_kept_sentence_takes_the_kind_its_frame_says(
    said: str, fitted: str, category: str
) -> None:
    assert _selected_category(said, fitted, TODAY)[0] == category  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "said, known",
    [
        ("these days I'm in Denver, the move was brutal", "The user lives in Austin."),
        ("home is Oakland now, the Bay Area rent is insane", "The user lives in Chicago."),
        (
            "just signed a lease in Portland, finally out of my parents' place",
            "The user lives in Seattle.",
        ),
        ("we're in Brooklyn now, the old Queens place was too small", "The user lives in Queens."),
        ("I'm with Datadog these days, left the bank in spring", "The user works at Barclays."),
        ("I now work remotely for Acme from Lisbon", "The user works at Globex."),
        ("I'm a staff engineer now, got promoted in January", "The user is a senior engineer."),
        ("我已经离开腾讯了，在一家创业公司", "用户在腾讯工作"),
    ],
)
def test_a_new_value_said_as_the_present_state_retires_the_old(said: str, known: str) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("My sister just moved to Boston.", "The user lives in Chicago."),
        ("thinking about switching to Emacs", "The user uses Vim."),
        ("Should I move to Berlin?", "The user lives in Munich."),
        ("I might move to Denver next year", "The user lives in Austin."),
        ("I'm in Denver for a conference this week", "The user lives in Austin."),
        ("my brother works at Apple now", "The user works at Google."),
        ("do you think I should switch to Arch Linux?", "The user uses Ubuntu."),
        ("我朋友搬到成都了", "用户住在北京"),
        ("我在考虑要不要搬去深圳", "用户住在北京"),
    ],
)
def test_someone_elses_change_a_plan_or_a_question_retires_nothing(said: str, known: str) -> None:
    found = _close([said], f"[k1] {known}")
    assert not any(contradicts for *_, contradicts in found)
    assert not any("sister" in content or "朋友" in content for _, content, _ in found)


def test_a_new_tool_said_in_chinese_keeps_the_users_word() -> None:
    found = _close(["前两天换了小米手机，苹果的太贵了"], "[k1] 用户用苹果手机")
    assert any("k1" in contradicts for *_, contradicts in found)
    assert not any("Xiaomi" in content for _, content, _ in found)


@pytest.mark.parametrize(
    "said, memory",
    [
        ("my boss and I get along really well", "The user and their boss get along really well."),
        ("me and my brother run a small bakery", "The user and their brother run a small bakery."),
        (
            "Yesterday my dad and I fixed the fence",
            "Yesterday the user and their dad fixed the fence.",
        ),
        ("Jared and I are building a shed", "The user and Jared are building a shed."),
        (
            "I went with my wife and I loved it",
            "The user went with their wife and the user loved it.",
        ),
    ],
)
def test_a_subject_the_user_shares_keeps_its_verb(said: str, memory: str) -> None:
    assert about_the_user(said) == memory


def test_a_shared_subject_is_not_cut_into_a_clause_about_the_user_alone() -> None:
    assert not any(
        content == "The user loves hiking in the Alps."
        for _, content, _ in _close(["My wife and I love hiking in the Alps"])
    )


@pytest.mark.parametrize(
    "said, known",
    [
        ("our standup moved to 10am", "The user's daily standup is at 9:30."),
        ("standup is at 10 now", "The user's daily standup is at 9:30."),
        ("I'm 35 now", "The user is 34 years old."),
        ("the team is 12 people now", "The user's team has 8 people."),
        ("we're on Python 3.12 now", "The user's project uses Python 3.10."),
        ("my rent went up to 2400", "The user pays 2100 a month in rent."),
        ("I started eating fish again, so not vegetarian anymore", "The user is vegetarian."),
        ("I stopped drinking coffee last month", "The user drinks coffee every morning."),
        ("我现在不喝咖啡了", "用户每天早上喝咖啡"),
        ("我们站会改到十点了", "用户每天九点半开站会"),
        ("现在团队有12个人了", "用户的团队有8个人"),
    ],
)
def test_the_same_thing_given_another_value_now_or_said_to_be_over_retires_it(
    said: str, known: str
) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("I'm at the gym now", "The user goes to the gym three times a week."),
        ("my kids are 5 and 7 now", "The user has two kids."),
        ("I sold my old bike", "The user rides a bike to work."),
        ("I have a 3pm meeting now", "The user's daily standup is at 9:30."),
        ("my brother is 35 now", "The user is 34 years old."),
        ("my sister stopped drinking coffee", "The user drinks coffee every morning."),
        ("can I still drink coffee if I'm pregnant?", "The user drinks coffee every morning."),
        ("我现在在喝咖啡", "用户每天早上喝咖啡"),
    ],
)
def test_the_same_thing_named_without_a_change_of_the_users_retires_nothing(
    said: str, known: str
) -> None:
    assert not any(contradicts for *_, contradicts in _close([said], f"[k1] {known}"))


def test_a_forget_request_may_point_back_at_a_person_and_a_name_in_lower_case_is_a_name() -> None:
    known = "[k1] The user's partner is Tom, who works as a chef.\n[k2] The user likes the sea."
    found = _close(
        [
            "tom and I split up last month. please don't bring him up anymore and you can "
            "delete whatever you had about him"
        ],
        known,
    )
    # The request is read, pointing back at Tom, and what it asks to forget is not kept again
    # from the same message ("The user and Tom split up").
    assert [content for _, content, _ in found] == [
        "The user's partner is Tom, who works as a chef."
    ]
    with freeze_time(datetime(2026, 4, 8, 12, tzinfo=timezone.utc)):
        asked = RuleExtractor().extract(
            [
                {
                    "role": "user",
                    "content": "tom and I split up. you can delete whatever you had about him",
                }
            ],
            known,
        )
    assert [c.confirms for c in asked if c.forget] == ["k1"]


@pytest.mark.parametrize(
    "said, day",
    [
        ("got jury duty on Monday", "2026-04-13"),
        ("Lunch with Sarah next Tuesday at noon", "2026-04-14"),
        ("passport renewal by end of month", "2026-04-30"),
        ("the boiler service is monday week", "2026-04-20"),
        ("周五晚上和老同学吃饭", "2026-04-10"),
        ("下个月3号搬家", "2026-05-03"),
        ("这周六带孩子打疫苗", "2026-04-11"),
    ],
)
def test_appointments_named_as_events_are_todos_for_their_day(said: str, day: str) -> None:
    todos = [content for category, content, _ in _close([said]) if category == "todo"]
    assert todos and day in todos[0]


@pytest.mark.parametrize(
    "said",
    [
        "Deal, 1 month floor.",
        "I make about 4k a month after tax",
        "I work 8pm to 8am three days a week",
    ],
)
def test_how_often_or_how_long_names_no_day(said: str) -> None:
    assert resolve_date(said, TODAY) is None


def test_a_day_and_a_verb_with_nothing_to_do_is_no_todo() -> None:
    assert not any(category == "todo" for category, *_ in _close(["我明天就去"]))


@pytest.mark.parametrize(
    "said, day",
    [
        ("the report is due end of the month, finance sends numbers on the 27th", "2026-04-30"),
        ("mum's 60th is a week on saturday", "2026-04-18"),
        ("the MOT is on the 3rd of next month", "2026-05-03"),
        ("onboarding the new hires first monday of next month", "2026-05-04"),
    ],
)
def test_more_spoken_day_shapes(said: str, day: str) -> None:
    assert str(resolve_date(said, TODAY)) == day


@pytest.mark.parametrize(
    "said, known",
    [
        ("handed in my notice at deloitte, I'm freelance now", "The user works at Deloitte."),
        ("promo came through!! staff engineer as of this month", "The user is a senior engineer."),
        ("升 P7 了，开始带人了", "用户职级是 P6"),
        ("终于把驾照从 C1 升到 B2 了", "用户有 C1 驾照"),
        ("migrated everything to 1password after the lastpass mess", "The user uses LastPass."),
        ("it's Alex Moreau now, not Turner", "The user's full name is Alex Turner."),
        ("left in june, I'm in-house at Monzo now", "The user works as a designer at an agency."),
        ("so after 9 years vegetarian I've started eating fish again", "The user is vegetarian."),
        ("终于拿到深圳的房本了 以后不用再交房租了", "用户在深圳租房住"),
        ("终于从 vim 转到 vscode 了 年纪大了不想折腾配置", "用户用 vim 写代码"),
    ],
)
def test_a_value_left_reached_or_switched_to_retires_the_old(said: str, known: str) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("I left Boston at 6am and drove all day", "The user lives in Boston."),
        ("I left my laptop at Google's office", "The user works at Google."),
        ("我从南京出发去上海玩", "用户住在南京"),
        ("从 Notion 导出的表格打不开", "用户用 Notion 记笔记"),
        ("I got L5 results back from the lab", "The user is at level L4."),
    ],
)
def test_a_value_named_beside_a_word_of_leaving_is_not_always_left(said: str, known: str) -> None:
    assert not any(contradicts for *_, contradicts in _close([said], f"[k1] {known}"))


def test_the_selector_picks_a_kind_over_fact_by_its_bias_and_keeps_chinese_at_its_threshold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from everbot_memory.extract.rules import selector as selector_module
    from everbot_memory.extract.rules.selector import Dense, Selector

    categories = {"fact": {"bias": 1.0}, "workflow": {"bias": 0.5}}
    plain = Selector({"bias": 2.0}, categories, 0.7)
    biased = Selector({"bias": 2.0}, categories, 0.7, bias={"fact": -1.0})
    assert plain.judge_features(["bias"]).category == "fact"
    assert biased.judge_features(["bias"]).category == "workflow"
    text = biased.to_json()
    monkeypatch.setattr(selector_module, "WEIGHTS_FILE", _written(text))
    selector_module.load_selector.cache_clear()
    try:
        loaded = selector_module.load_selector()
        assert loaded is not None and loaded.bias == {"fact": -1.0}
    finally:
        selector_module.load_selector.cache_clear()

    dense = Dense([0.0], 0.0, 0.7, None, 0.75)
    model = Selector({}, {}, 0.7, dense)
    monkeypatch.setattr(selector_module, "embedder", lambda: object())
    assert model.threshold_for("I moved to Leeds") == 0.7
    assert model.threshold_for("我搬到杭州了") == 0.75
    monkeypatch.setattr(selector_module, "embedder", lambda: None)
    assert model.threshold_for("我搬到杭州了") == 0.7  # the words' own threshold


def _written(text: str) -> object:
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "selector.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_clause_with_its_verb_before_and_i_is_still_cut() -> None:
    found = _close(["my name is Lena and I work at Nordwind Logistics as a data engineer."])
    assert ("fact", "The user works at Nordwind Logistics as a data engineer.", ()) in found


def test_a_question_after_a_statement_is_left_out_never_half_rewritten() -> None:
    said = "every time I end up reaching for pnpm again 😂 anyway how do I set up a workspace"
    assert about_the_user(said) == "Every time the user ends up reaching for pnpm again."
    assert about_the_user("how do I set up a workspace") == (
        'The user asked: "how do I set up a workspace"'
    )


def test_a_number_corrected_after_well_keeps_the_later_one() -> None:
    from everbot_memory.extract.rules.wording import corrected

    assert corrected("I'm running about 30k a week, well, 25 really").startswith(
        "I'm running about 25k a week"
    )
    assert corrected("we went well over budget") == "we went well over budget"


KNOWN_TO_FORGET = [
    ("k1", "The user is planning a trip to Peru in August 2026."),
    ("k2", "The user's phone number is +44 7700 900123."),
    ("k3", "The user sees a therapist every Thursday evening."),
    ("k4", "The user likes hiking."),
]


@pytest.mark.parametrize(
    "said, target",
    [
        ("nvm the peru trip, it's not happening.", "k1"),
        ("pls forget my phone number, I shouldn't have given it to you", "k2"),
        ("hey, don't keep the bit about my therapist please.", "k3"),
        ("I always forget my phone at home", None),
        ("never mind, I found it", None),
        ("my hiking trip got cancelled because of rain", None),
        # After words that only lead in; what the request names before the reason for it.
        ("oh and actually forget what i said about the therapist, i'd rather not", "k3"),
        ("first, forget that i'm planning the peru trip, my phone gets checked lol", "k1"),
        ("one more thing: please delete my phone number", "k2"),
        ("could you stop keeping my phone number on file?", "k2"),
        # What was just said taken back, a topic dropped, a fresh start asked for: no memory.
        ("actually forget that, let's plan the peru trip instead", None),
        ("ok first forget the therapist stuff, just help me with this email", None),
        ("stop keeping score lol, we both know i lost the hike", None),
        ("first, forget everything you know about peru and explain it from scratch", None),
    ],
)
def test_forget_requests_said_in_passing(said: str, target: str | None) -> None:
    from everbot_memory.extract.rules.updates import forget_request

    assert forget_request(said, KNOWN_TO_FORGET) == target


@pytest.mark.parametrize(
    "said, known",
    [
        (
            "the drive from our flat in Bath to work is only ten minutes",
            "The user lives in Exeter.",
        ),
        ("我们家现在在无锡，空气好多了", "用户住在上海"),
        ("在厦门住了一年多了，海鲜吃不腻", "用户住在福州"),
        ("my new manager Olga is great at 1:1s", "The user's manager is Ben."),
        ("since I retrained as an electrician the hours are better", "The user is an accountant."),
        ("I now work as a translator, mostly German", "The user is a teacher."),
        ("转岗做测试两个月了", "用户是产品经理"),
        ("we ported the whole API to Rust this spring", "The user writes the API in Python."),
        ("后端用 Go 重写了", "用户的后端用 Java 写"),
        ("my Helix config is finally done", "The user uses VS Code as their editor."),
        ("现在记账都用 Notion 了", "用户用印象笔记记账"),
        ("picked up the new Mazda on friday, smooth ride", "The user drives a Toyota Corolla."),
        ("I started eating chicken again last month", "The user is vegetarian."),
        ("最近开始吃肉了", "用户吃素"),
        ("my boyfriend and I are off to Lisbon in June", "The user is single."),
    ],
)
def test_a_new_value_said_in_passing_retires_the_old(said: str, known: str) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("my husband just joined Canva as a designer", "The user works at Atlassian."),
        ("我老公刚入职网易", "用户在百度工作"),
        ("learning Rust on the side now, it's fun", "The user writes the API in Python."),
        ("my dad wants to buy a Tesla", "The user drives a Toyota Corolla."),
        ("my partner is vegan, what should I cook?", "The user is vegetarian."),
        ("最近不想用印象笔记了，有没有别的", "用户用印象笔记记账"),
        ("if I had a girlfriend I'd take her to Lisbon", "The user is single."),
        ("我表姐在厦门住了十年", "用户住在福州"),
    ],
)
def test_someone_elses_value_a_wish_or_a_tool_being_learned_retires_nothing(
    said: str, known: str
) -> None:
    assert not any(_retired(said, known))


def test_one_word_of_a_switch_changes_the_value_nearest_it() -> None:
    found = _close(
        ["终于从 vim 转到 vscode 了 但是 python 的解释器一直选不对"], "[k1] 用户用 vim 写代码"
    )
    assert any("k1" in contradicts for *_, contradicts in found)
    assert not any("Python" in content for _, content, _ in found)


@pytest.mark.parametrize(
    "said, known",
    [
        ("our new neighbours in Galway brought us bread", "The user lives in Cork."),
        ("my team at Figma ships on thursdays", "The user works at Adobe."),
        ("在京东上班快一年了", "用户在美团工作"),
        ("现在做产品经理了", "用户是前端工程师"),
        ("I'm a midwife now, finished the course", "The user is a nurse."),
        ("these days I'm doing backend work as a platform engineer", "The user is a designer."),
        ("we switched the whole org to Microsoft Teams", "The user's team chats on Slack."),
        ("got a MacBook Pro from the new job", "The user uses Windows."),
        ("please reply in Spanish from now on", "The user prefers replies in English."),
        ("以后用中文回复我", "用户希望用英文回复"),
        ("Biscuit passed away on sunday", "The user has a dog named Biscuit."),
    ],
)
def test_a_workplace_a_trade_a_chat_tool_or_an_answer_language_said_anew_retires_the_old(
    said: str, known: str
) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("my brother's company moved everyone to Teams", "The user's team chats on Slack."),
        ("bought my daughter a MacBook for college", "The user uses Windows."),
        (
            "can you translate this answer into Spanish for my client?",
            "The user prefers replies in English.",
        ),
        ("my neighbour's dog passed away", "The user has a dog named Biscuit."),
        (
            "the alerts go to a slack channel nobody reads anymore",
            "The user's team chats on Teams.",
        ),
    ],
)
def test_someone_elses_tool_a_translation_or_someone_elses_loss_retires_nothing(
    said: str, known: str
) -> None:
    assert not any(_retired(said, known))


MORE_TO_FORGET = [
    ("k1", "The user is allergic to shellfish."),
    ("k2", "The user lives at 14 Elm Road, Leeds."),
    ("k3", "The user's girlfriend is called Mia."),
    ("k4", "用户住在成都市武侯区"),
    ("k5", "用户的女朋友在长沙读书"),
]


@pytest.mark.parametrize(
    "said, target",
    [
        ("could you wipe the shellfish allergy note", "k1"),
        ("no need to keep anything about my allergy", "k1"),
        ("please purge my address, it feels too detailed", "k2"),
        ("my ex, you can clear that whole thing", "k3"),
        ("can you erase everything you know about Mia?", "k3"),
        ("please delete whatever you've saved about my shellfish allergy", "k1"),
        ("you don't need my address on file anymore, I've moved", "k2"),
        ("你记的我家地址删掉吧，已经搬了", "k4"),
        ("I don't need the shellfish recipes anymore", None),
        ("前女友的事清掉吧", "k5"),
        ("我家地址那条作废吧", "k4"),
        ("it's clear that the allergy is getting worse", None),
        ("how do I clear my browser history?", None),
    ],
)
def test_forget_requests_in_other_verbs_and_by_topic(said: str, target: str | None) -> None:
    from everbot_memory.extract.rules.updates import forget_request

    assert forget_request(said, MORE_TO_FORGET) == target


def test_a_title_alone_is_no_name_and_a_cut_list_is_no_memory() -> None:
    found = _close(["PASSED my viva!!! it's Dr now", "待办：1.改简历 2.约体检 3."])
    assert not any("name is" in content for _, content, _ in found)
    assert not any(content.rstrip("。. ").endswith("3.") for _, content, _ in found)


@pytest.mark.parametrize(
    "content, kept",
    [
        ("The user reports to Ines now instead of Paul.", "The user reports to Ines now."),
        ("The user's surname is Okafor now, not Bello.", "The user's surname is Okafor now."),
        ("用户现在用的是 Vue，而不是 React 了。", "用户现在用的是 Vue。"),
        ("The user is not Happy with the move.", "The user is not Happy with the move."),
    ],
)
def test_a_memory_keeps_the_new_value_without_the_old_one_said_beside_it(
    content: str, kept: str
) -> None:
    from everbot_memory.extract.rules.extractor import _without_old_value

    assert _without_old_value(content) == kept


@pytest.mark.parametrize(
    "said",
    [
        "my new teammate pushes straight to main every day",
        "our landlord repaints the hallway every spring",
        "成都到重庆哪趟高铁最快",
    ],
)
def test_someone_elses_habit_or_a_question_without_its_mark_is_not_judged(said: str) -> None:
    from everbot_memory.extract.rules import judged

    assert not judged(said)


@pytest.mark.parametrize(
    "said, kept",
    [
        ("我女儿五岁，啊不，上个月刚满六岁了", "我女儿六岁了"),
        ("我家在九楼，不对，十一楼", "我家在十一楼"),
        ("我们组12个人，不对，走了一个，现在11个", "我们组11个人"),
        ("我上大二，不对，大三了", "我上大三了"),
    ],
)
def test_a_value_corrected_in_chinese_numerals_keeps_the_later_one(said: str, kept: str) -> None:
    from everbot_memory.extract.rules.wording import corrected

    assert corrected(said) == kept


@pytest.mark.parametrize(
    "said, memory",
    [
        ("I'm dyslexic, any tips for reading long papers?", "The user is dyslexic."),
        ("I'm lactose intolerant so can you suggest a dessert", "The user is lactose intolerant."),
        (
            "I ride a 2015 Vespa, is it worth replacing the battery myself?",
            "The user rides a 2015 Vespa.",
        ),
        (
            "our studio is in Leipzig, what's the quickest way to the airport",
            "The user's studio is in Leipzig.",
        ),
        ("我是左撇子，有没有适合的剪刀推荐", "用户是左撇子"),
        ("我有高血压，这个菜谱能吃吗", "用户有高血压"),
        ("我们公司在无锡，周末去上海哪里好玩", "用户的公司在无锡"),
    ],
)
def test_a_lasting_condition_a_vehicle_or_a_workplace_said_before_a_question_is_kept_alone(
    said: str, memory: str
) -> None:
    found = _close([said])
    assert [content for _, content, _ in found] == [memory]


@pytest.mark.parametrize(
    "said",
    ["I'm a vegan friend's guest tonight, what do I bring?", "I drive to work most days"],
)
def test_a_condition_word_about_someone_else_or_a_drive_without_a_vehicle_is_no_such_fact(
    said: str,
) -> None:
    found = _close([said])
    assert not any(
        content.startswith(("The user is vegan", "The user drives")) for _, content, _ in found
    )


@pytest.mark.parametrize(
    "said, memory",
    [
        ("I don't drink so skip the cocktail suggestions", "The user doesn't drink."),
        (
            "we have a toddler who naps after lunch so keep it quiet",
            "The user has a toddler who naps after lunch.",
        ),
        ("我们家养了一只金毛", "用户家养了一只金毛"),
    ],
)
def test_a_statement_keeps_no_request_said_after_so_and_a_household_is_the_users(
    said: str, memory: str
) -> None:
    assert [content for _, content, _ in _close([said])] == [memory]


@pytest.mark.parametrize(
    "said, known",
    [
        ("since joining Zalando my commute doubled", "The user works at SAP."),
        ("got my first paycheck from Zalando today", "The user works at SAP."),
        ("SAP let me go in March", "The user works at SAP."),
        ("our landlord here in Porto fixed the boiler", "The user lives in Lisbon."),
        ("our first winter in Tromsø has been pitch dark", "The user lives in Oslo."),
        ("在厦门这边的第一个冬天，一点都不冷", "用户住在广州"),
        ("we binned Asana, everything lives in Notion", "The user's team uses Asana."),
        ("I stepped down as team lead, back to writing code", "The user is a team lead."),
        ("traded in the Mustang for a Tesla", "The user drives a Ford Mustang."),
        ("since the divorce I've been cooking for one", "The user is married to Sam."),
        ("离婚半年了，慢慢走出来了", "用户已婚"),
    ],
)
def test_a_job_a_home_a_role_a_car_or_a_marriage_said_to_be_over_in_other_words_retires_it(
    said: str, known: str
) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("SAP has a new CEO", "The user works at SAP."),
        ("our first trip to Porto was rainy", "The user lives in Lisbon."),
        ("在厦门出差的第一天就下雨", "用户住在广州"),
        ("our team lead quit on friday", "The user is a team lead."),
        ("my parents are getting divorced", "The user is married to Sam."),
        ("我爸妈离婚了", "用户已婚"),
    ],
)
def test_someone_elses_divorce_or_role_a_trip_or_news_of_the_employer_retires_nothing(
    said: str, known: str
) -> None:
    assert not any(_retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("我们一家现在在烟台了，孩子也转学过来了", "用户住在济南"),
        ("滴滴那边已经交接完了，下周一去快手报到", "用户在滴滴工作"),
        ("我现在是快手的员工了", "用户在滴滴工作"),
        ("裸辞了，先休息几个月", "用户在滴滴工作"),
        ("现在全面转 Mac 了", "用户用 Windows 电脑"),
        ("工作第一年，还在适应", "用户是研究生"),
        ("新提了一辆理想 L6", "用户开一辆丰田"),
        ("我和男朋友在一起两年了", "用户单身"),
    ],
)
def test_chinese_changes_said_as_the_present_retire_the_old(said: str, known: str) -> None:
    assert any("k1" in contradicts for contradicts in _retired(said, known))


@pytest.mark.parametrize(
    "said, known",
    [
        ("在 Jira 上提了个 bug 给供应商", "用户的团队用 Tapd 管任务"),
        ("给我妈新买了个小米", "用户用华为手机"),
        ("我现在在昆明出差", "用户住在济南"),
        ("我表弟是快手的员工", "用户在滴滴工作"),
        ("我哥工作第一年就买房了", "用户是研究生"),
        ("我和女朋友分手半年了", "用户单身"),
        ("同事都用 Mac，我还是习惯 Windows", "用户用 Windows 电脑"),
    ],
)
def test_chinese_news_of_others_a_trip_or_a_breakup_retires_nothing(said: str, known: str) -> None:
    assert not any(_retired(said, known))


@pytest.mark.parametrize(
    "said",
    [
        "the gym reopened on Monday after the flood",
        "my old lease ended friday, so that chapter is closed",
        "we shipped the beta on tuesday",
        "last Saturday I ran my first 10k",
        "上周五去医院拿了报告",
        "上个礼拜三搬的家",
    ],
)
def test_a_weekday_gone_by_names_no_day(said: str) -> None:
    assert resolve_date(said, TODAY) is None


@pytest.mark.parametrize(
    "said, day",
    [
        ("the vet moved the checkup to Monday", "2026-04-13"),
        ("I'm flying out friday", "2026-04-10"),
        ("we sold the car, the buyer picks it up on saturday", "2026-04-11"),
        ("she said the keys are ready thursday", "2026-04-09"),
        ("周五要交季度报告", "2026-04-10"),
        ("上周五说好了，下周五交初稿", "2026-04-17"),
        ("I went to the dentist on monday, the next visit is on friday", "2026-04-10"),
    ],
)
def test_a_weekday_arranged_or_still_to_come_is_read_as_the_next_one(said: str, day: str) -> None:
    assert str(resolve_date(said, TODAY)) == day


def test_a_story_of_last_week_told_with_its_weekday_is_no_todo() -> None:
    found = _close(["we finally repainted the nursery on sunday, it looks great"])
    assert all(category != "todo" for category, _, _ in found)


@pytest.mark.parametrize(
    "said, value",
    [
        ("I start my new job at Datadog next Monday", "Datadog"),
        ("下周一去字节报到，有点紧张", "字节"),
        ("下个月搬到杭州，公司在那边", "杭州"),
    ],
)
def test_a_plan_naming_a_new_workplace_or_home_is_kept_as_that_fact(said: str, value: str) -> None:
    found = [(c, text) for c, text, _ in _close([said]) if value in text]
    assert found and all(category == "fact" for category, _ in found)


@pytest.mark.parametrize(
    "said",
    [
        "I need to set up Postgres on the new laptop tomorrow",
        "dentist next monday at 3",
        "下周三要去医院复查",
    ],
)
def test_a_plan_naming_no_home_or_workplace_stays_a_todo(said: str) -> None:
    assert [category for category, _, _ in _close([said])] == ["todo"]


def test_a_new_workplace_named_after_a_comma_is_still_the_new_one() -> None:
    known = "[k1] The user works at Shopify."
    found = _close(["my new employer, Datadog, pays for the gym"], known)
    assert ("fact", "The user works at Datadog.", ("k1",)) in found


def test_words_after_a_comma_that_name_nothing_give_no_new_workplace() -> None:
    found = _close(["my new employer, as you know, is strict"], "[k1] The user works at Shopify.")
    assert not any(contradicts for *_, contradicts in found)


@pytest.mark.parametrize(
    "said, kept, gone",
    [
        ("I work at Shopify, I mean Stripe, sorry", "Stripe", "Shopify"),
        ("My manager is Tom, sorry, Priya, she started in May", "Priya", "Tom"),
        ("I'm at our Seattle office, well, Bellevue really", "Bellevue", "Seattle"),
        ("I have two cats, actually three", "three", "two"),
    ],
)
def test_a_name_or_a_count_corrected_in_the_same_breath_keeps_the_later_one(
    said: str, kept: str, gone: str
) -> None:
    [(_, content, _)] = _close([said])
    assert kept in content and gone not in content
    assert not re.search(r"\b(?:really|sorry)\b", content)


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I love Paris, well, Paris in spring anyway", "Paris"),
        ("I have two kids and three cats", "two kids"),
        ("I work at Shopify, I Mean it, the pay is great", "Shopify"),
    ],
)
def test_a_value_not_corrected_is_kept_as_said(said: str, kept: str) -> None:
    assert any(kept in content for _, content, _ in _close([said]))


@pytest.mark.parametrize(
    "said, category",
    [
        ("went to my first pottery class last week and loved it", "experience"),
        ("I was a line cook for six years before nursing", "experience"),
        ("去年在云南骑行了半个月", "experience"),
        # Not a story of what happened: a state now, or a habit.
        ("I work as a nurse on night shifts", "fact"),
        ("went swimming every morning for years", "fact"),
    ],
)
def test_a_kept_sentence_told_as_a_story_is_an_experience(said: str, category: str) -> None:
    assert _selected_category(said, "fact", TODAY)[0] == category


@pytest.mark.parametrize(
    "said, known",
    [
        ("I handed in my notice, monday I start at Stripe", "The user works at Shopify."),
        ("after the layoffs I landed a job at Stripe", "The user works at Shopify."),
        ("现在是字节的人了，还在适应", "用户在阿里巴巴工作"),
    ],
)
def test_a_job_to_start_or_landed_retires_the_old_workplace(said: str, known: str) -> None:
    assert any(contradicts == ("k1",) for *_, contradicts in _close([said], f"[k1] {known}"))


@pytest.mark.parametrize(
    "said, known",
    [
        ("I landed at Heathrow at 6am", "The user works at Shopify."),
        ("I start with Pilates next week", "The user works at Shopify."),
        ("他现在是字节的人了", "用户在阿里巴巴工作"),
    ],
)
def test_a_flight_a_class_or_someone_elses_job_retires_no_workplace(said: str, known: str) -> None:
    assert not any(contradicts for *_, contradicts in _close([said], f"[k1] {known}"))


@pytest.mark.parametrize(
    "said, kept",
    [
        ("工资卡换成招行了，销户要注意啥。", "工资卡换成招行了"),
        ("我看不懂英制单位。行李箱28寸多大", "我看不懂英制单位。"),
        ("两周后搬家 找搬家公司要注意啥", "两周后搬家 "),
    ],
)
def test_a_chinese_question_without_its_mark_is_cut_from_a_statement(said: str, kept: str) -> None:
    assert statement(said) == kept


@pytest.mark.parametrize("said", ["答辩 PPT 有什么要注意的", "35 寸行李箱多大。", "搬家要注意啥"])
def test_a_chinese_question_without_its_mark_is_not_judged(said: str) -> None:
    assert not judged(said)


@pytest.mark.parametrize("said", ["我什么都吃，不挑食", "我住在杭州 在阿里上班", "我对啥都好奇"])
def test_a_question_word_inside_a_statement_leaves_it_whole(said: str) -> None:
    assert statement(said) == said


@pytest.mark.parametrize(
    "said, known",
    [
        ("we're in Austin now, the old Dallas apartment sold fast", "The user lives in Dallas."),
        ("I'm at Stripe now, my former employer Shopify owes me", "The user works at Shopify."),
    ],
)
def test_the_old_value_named_as_the_one_before_is_retired(said: str, known: str) -> None:
    assert any("k1" in contradicts for *_, contradicts in _close([said], f"[k1] {known}"))


def test_the_old_value_named_as_still_so_or_told_is_kept() -> None:
    assert not any(
        contradicts
        for said in (
            "I'm in Austin now, my job is still in Dallas",
            "I'm in Austin now, I told my Dallas friends",
        )
        for *_, contradicts in _close([said], "[k1] The user lives in Dallas.")
    )


@pytest.mark.parametrize(
    "said, kept",
    [
        ("it's May 13 not May 3.", "it's May 13."),
        ("我生日是3月18号，不是3月8号。", "我生日是3月18号。"),
        ("我今年30岁，不是29岁了", "我今年30岁了"),
        ("我住12楼不是11楼", "我住12楼"),
        ("the call is at 3pm, not 2pm", "the call is at 3pm"),
        # Not a value of the same shape denied: left as said.
        ("we live in Leeds, not the city centre", "we live in Leeds, not the city centre"),
        ("I have 2 kids not 3 dogs", "I have 2 kids not 3 dogs"),
    ],
)
def test_a_value_denied_after_the_right_one_is_dropped(said: str, kept: str) -> None:
    from everbot_memory.extract.rules.wording import corrected

    assert corrected(said) == kept


def test_a_date_denied_after_the_right_one_leaves_no_mangled_date() -> None:
    contents = [content for _, content, _ in _close(["你记错了，我生日是3月18号，不是3月8号"])]
    assert contents and all("3月8" not in c and "3月3号" not in c for c in contents)


def test_a_conversations_sentences_are_embedded_in_one_batch_and_judged_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A long transcript has thousands of sentences: one call of the encoder for all of them.
    from everbot_memory.extract.rules import selector as selector_module
    from everbot_memory.extract.rules.selector import Dense, Selector

    calls: list[list[str]] = []

    class Encoder:
        def encode(self, texts: list[str]) -> list[list[float]]:
            calls.append(list(texts))
            return [[float(len(t) % 7), 1.0] for t in texts]

    monkeypatch.setattr(selector_module, "embedder", lambda: Encoder())
    dense = Dense([0.3, -0.2], 0.1, 0.5, None, 0.5)
    model = Selector({"w:like": 1.0}, {}, 0.5, dense)
    texts = ["I like tea.", "I moved to Leeds last spring.", "I like tea."]
    alone = [model.judge(t) for t in texts]
    assert len(calls) == 3
    calls.clear()
    model.prime(texts)
    assert calls == [["I like tea.", "I moved to Leeds last spring."]]  # once, each text once
    assert [model.judge(t) for t in texts] == alone and len(calls) == 1
    model.judge("Not primed.")
    assert calls[-1] == ["Not primed."]  # anything else still judged alone


@pytest.mark.parametrize(
    "said, known",
    [
        # A home corrected in the next sentence, "now" before the marker.
        (
            "we live in Brooklyn. well, Queens now actually, we moved across the river in June",
            "The user lives in Brooklyn.",
        ),
        # The old tool dropped, then the new one, with what it is used for in front.
        ("现在记账都不用Excel了，改成用随手记，你知道怎么导出年度报表吗", "用户用 Excel 记账"),
        ("写前端我已经不用Vue了，换成React了", "用户用 Vue 写前端"),
    ],
)
def test_a_change_said_in_passing_retires_the_known_value(said: str, known: str) -> None:
    assert ("k1",) in _retired(said, known)


def test_a_day_an_appointment_moved_to_is_no_home() -> None:
    found = _close(
        ["my dentist appointment got moved to Thursday at 4, can you remind me the day before?"]
    )
    assert [category for category, *_ in found] == ["todo"]


def test_what_the_user_always_wants_of_answers_is_a_taste() -> None:
    found = _close(
        ["I always want type hints in any Python you write for me, even in quick scripts."]
    )
    assert [category for category, *_ in found] == ["preference"]


@pytest.mark.parametrize(
    "said, kept, gone",
    [
        # Chinese typed with spaces for commas, the slip said once or twice.
        ("我周二下午 不对 周三下午 要去体检", "周三下午", "周二"),
        ("下周一交房租 不对不对 是下周三 周一我出差", "下周三交房租", "下周一交"),
        ("我对花生过敏 哦不对 是核桃 花生没事", "核桃过敏", "花生过敏"),
        ("我女儿今年上二年级 啊不是 三年级了", "三年级", "二年级"),
        # A filler before the slip, the slip said twice, the word corrected said on.
        (
            "My cat Mochi - uh sorry, Miso, my phone keeps changing it - hates the vet",
            "Miso",
            "Mochi",
        ),
        (
            "I'm allergic to shrimp — wait no, sorry, it's crab I mean, shrimp is fine",
            "crab",
            "to shrimp",
        ),
        # A number of the shape of the one corrected: the day, not the time.
        ("dinner with the in-laws is the 12th at 7pm — no sorry, the 13th", "13th at 7pm", "12th"),
    ],
)
def test_a_value_corrected_without_commas_or_after_a_filler_keeps_the_later_one(
    said: str, kept: str, gone: str
) -> None:
    fixed = corrected(said)
    assert kept in fixed and gone not in fixed, fixed


def test_a_year_corrected_in_the_next_sentence_keeps_the_later_one() -> None:
    said = "I've been teaching at Acme since 2017. Hang on, it's 2016, right after college."
    contents = [content for _, content, _ in _close([said])]
    assert any("2016" in content for content in contents), contents
    assert not any("2017" in content for content in contents), contents


@pytest.mark.parametrize(
    "said, kept",
    [
        # A plain "不是" after a space is "not", no slip.
        ("我周末 不是在家就是在健身房", "不是在家"),
        ("I hate cilantro, sorry, it's a strong opinion", "cilantro"),
    ],
)
def test_words_that_only_look_like_a_slip_are_kept_as_said(said: str, kept: str) -> None:
    assert corrected(said) == said


def test_a_change_said_beside_the_old_value_still_so_retires_nothing() -> None:
    # Whichever rule reads the change, the old value named as still so keeps the memory.
    for said in (
        "I'm in Austin now, my job is still in Dallas",
        "Moved to Leeds, still work in York",
    ):
        known = (
            "[k1] The user lives in Dallas." if "Dallas" in said else "[k1] The user works in York."
        )
        assert not any(contradicts for *_, contradicts in _close([said], known))


@pytest.mark.parametrize(
    "message, pasted",
    [
        (
            'can you make this sound less passive aggressive?\n\n"Per my last email, the invoice '
            'from Dana at Brightline is overdue by 30 days. We moved the deadline twice."',
            "Brightline",
        ),
        (
            "ugh my week. anyway turn this into bullet points for me\n\nHi all, starting Monday "
            "the Oslo office moves to Storgata 12 and Henrik Dahl takes over procurement.",
            "Henrik",
        ),
        (
            "帮我把这段话翻成英文 客户那边要\n\n本公司将于下周迁至浦东新区张江路88号，联系人王磊。",
            "张江",
        ),
        ("我朋友的自我介绍 帮忙看看哪里能改\n\n“我叫李想，在字节做了三年运营，喜欢徒步。”", "字节"),
    ],
)
def test_a_text_pasted_to_work_on_gives_no_memory(message: str, pasted: str) -> None:
    assert not any(pasted in content for _, content, _ in _close([message]))


def test_the_users_own_words_around_a_pasted_text_are_still_read() -> None:
    message = (
        "I moved to Denver last month and I'm a nurse at Rose Medical.\n\n"
        "Can you check the letter below?\n\nDear tenant, the rent goes up in June."
    )
    contents = [content for _, content, _ in _close([message])]
    assert any("Denver" in content for content in contents), contents
    assert not any("tenant" in content.casefold() for content in contents), contents


def test_a_paragraph_ending_on_something_to_fix_is_no_request_for_work() -> None:
    message = (
        "My bike chain snapped again. I need to fix it.\n\nAlso I started at Stripe last week."
    )
    contents = [content for _, content, _ in _close([message])]
    assert any("Stripe" in content for content in contents), contents


@pytest.mark.parametrize(
    "said, kept",
    [
        ("我宣布明天就辞职去大理开客栈 哈哈哈 算了 今天先把周报写完", None),
        (
            "I'm moving to Bali next month, jk, but I am taking Friday off for the dentist",
            "dentist",
        ),
        ("我不是开玩笑的，我下个月真的要搬到成都了", "成都"),
    ],
)
def test_what_the_user_takes_back_as_a_joke_is_not_kept(said: str, kept: str | None) -> None:
    contents = [content for _, content, _ in _close([said])]
    assert not any(w in c for c in contents for w in ("大理", "Bali")), contents
    if kept:
        assert any(kept in c for c in contents), contents


@pytest.mark.parametrize(
    "known, said",
    [
        (
            "The user drives a Subaru Outback.",
            "honestly I miss my old Subaru, the new truck rides rough",
        ),
        (
            "The user trains at Equinox.",
            "back when I trained at Equinox the classes were packed, my new gym is empty",
        ),
        ("The user's team lead is Marco.", "Marco's gone, the new lead starts Monday"),
        ("The user writes mostly Ruby.", "I haven't touched Ruby in months, it's all Elixir now"),
        ("用户在字节跳动工作。", "我在字节那会儿天天加班 现在准点下班"),
        ("用户的工资卡是建设银行的。", "建行那张卡我已经注销了 现在工资都发到招行"),
        ("用户的组长是老刘。", "老刘调走了 新组长还没定"),
    ],
)
def test_a_known_value_named_as_the_one_before_is_retired(known: str, said: str) -> None:
    assert ("k1",) in _retired(said, known)


@pytest.mark.parametrize(
    "known, said",
    [
        ("The user lives in Berlin.", "back when we visited Berlin in 2019 it rained all week"),
        ("The user's manager is Kevin.", "Kevin's gone for the week, so standup is cancelled"),
        ("The user uses VS Code.", "I used to hate VS Code but now I love it"),
        ("The user works at Stripe.", "back when I was at Stripe's Dublin office for onboarding"),
        ("用户用Python写后端。", "我们组以前用Java 后来才换成Python"),
        ("用户在阿里工作。", "之前在阿里出差的时候认识了她"),
        ("用户的领导是王姐。", "王姐今天请假了 下午的会取消了"),
    ],
)
def test_a_known_value_named_otherwise_than_as_before_is_kept(known: str, said: str) -> None:
    assert not any(_retired(said, known))


@pytest.mark.parametrize(
    "lines, known",
    [
        (
            ["the thing about my dad's surgery. can you let that go? it's private"],
            "[k1] The user's dad had heart surgery in March.",
        ),
        (
            ["could you not keep my exact salary? roughly is fine"],
            "[k1] The user's salary is $142,000.",
        ),
        (["我说过我在准备考公务员那条可以删了 不考了"], "[k1] 用户在准备考公务员"),
        (
            ["I'd rather my therapy stuff not be something you carry around"],
            "[k1] The user sees a therapist for anxiety.",
        ),
    ],
)
def test_a_request_to_let_a_memory_go_forgets_it(lines: list[str], known: str) -> None:
    found = _extracted(lines, known)
    assert [c.confirms for c in found if c.forget] == ["k1"]


@pytest.mark.parametrize(
    "said, kept",
    [
        ("ok I'm hosting book club at my place next thursday", "book club"),
        ("lol I'm running the half marathon on sunday", "half marathon"),
        ("could you remind me my car insurance renews on the 20th", "car insurance"),
    ],
)
def test_news_after_a_reaction_or_a_reminder_without_commas_is_a_todo(said: str, kept: str) -> None:
    found = _close([said])
    assert any(category == "todo" and kept in content for category, content, _ in found), found
    assert not any("asked" in content for _, content, _ in found), found


def test_a_year_corrected_in_the_next_message_with_the_wrong_one_denied() -> None:
    found = _close(
        [
            "I've lived in Denver since 2015",
            "hang on, it's 2014 not 2015, we moved the summer after college",
        ]
    )
    contents = [content for _, content, _ in found]
    assert any("2014" in content and "Denver" in content for content in contents), contents
    assert not any("2015" in content for content in contents), contents


def test_what_is_said_of_the_wrong_value_after_a_correction_is_not_kept() -> None:
    fixed = corrected("the vet is Thursday at 9 — sorry, Friday, Thursday is my yoga class")
    assert fixed == "the vet is Friday at 9"


@pytest.mark.parametrize(
    "known, said",
    [
        ("用户在腾讯工作。", "原来腾讯也有免费班车啊"),
        ("用户住在杭州。", "之前杭州下了一周的雨，烦死了"),
        ("用户住在北京。", "我之前在北京见过他一次"),
        ("用户平时用Python写脚本。", "我之前用Python写过一个爬虫，现在想加个代理池"),
        ("用户住在上海。", "我刚来上海那会儿什么都不懂，现在好多了"),
        ("用户每天喝奶茶。", "楼下那家奶茶店倒闭了"),
        ("用户的老板是李总。", "隔壁组老板调走了"),
        ("The user uses a MacBook Pro.", "My old MacBook finally died so I got a new MacBook Pro."),
        ("The user works at Apple.", "My old Apple Watch died, thinking of getting a new Garmin."),
        (
            "The user's manager is Kevin.",
            "Kevin's gone, he's on vacation till Monday, so I'm running standup.",
        ),
        (
            "The user's wife is Anna.",
            "Back when I was dating Anna she hated sushi, now she loves it.",
        ),
        ("The user uses Python at work.", "I haven't touched Python in a week, been swamped."),
    ],
)
def test_a_value_named_in_the_past_of_something_still_so_retires_nothing(
    known: str, said: str
) -> None:
    assert not any(_retired(said, known))


@pytest.mark.parametrize(
    "message, kept",
    [
        ("Check this out!\n\nI just got promoted to Staff Engineer at Stripe", "Stripe"),
        (
            "Translate this into Spanish:\n\nHola, me llamo Dana.\n\n"
            "Also, I'm moving to Madrid next month for work!",
            "Madrid",
        ),
        (
            '"I\'m leaving Stripe to join Figma next month."\n\n'
            "That's what I posted on LinkedIn today.",
            "Figma",
        ),
        ("帮我看看这个offer\n\n字节给了50万，我现在在阿里拿40万，住在杭州", "杭州"),
    ],
)
def test_the_users_own_paragraphs_after_a_request_are_read(message: str, kept: str) -> None:
    assert any(kept in content for _, content, _ in _close([message]))


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I'm allergic to peanuts and my son keeps kidding around with peanut butter.", "peanuts"),
        ("I've read every JK Rowling book twice, my favorite author.", "Rowling"),
        ("我老板特别爱开玩笑的，不过我下个月要跳槽去字节了", "字节"),
    ],
)
def test_a_joke_word_that_takes_nothing_back_keeps_the_fact(said: str, kept: str) -> None:
    assert any(kept in content for _, content, _ in _close([said]))


@pytest.mark.parametrize(
    "said, known",
    [
        ("那条朋友圈可以删了吗，老板看到了", "[k1] 用户昨天发了条朋友圈说要辞职"),
        ("那个读书群可以删了，没人说话", "[k1] 用户在一个读书群里"),
    ],
)
def test_deleting_a_thing_in_the_world_forgets_no_memory(said: str, known: str) -> None:
    assert not any(c.forget for c in _extracted([said], known))


@pytest.mark.parametrize(
    "said, day",
    [
        ("Dentist tomorrow at 9, last time was on the 2nd.", date(2026, 4, 9)),
        ("明天去医院复查，上次是3号去的", date(2026, 4, 9)),
        ("The exam got moved to the 15th, and it was originally on the 28th.", date(2026, 4, 15)),
    ],
)
def test_a_day_of_the_past_beside_the_day_to_do_is_not_the_last(said: str, day: date) -> None:
    assert resolve_date(said, TODAY) == day


def test_a_correction_never_leaves_a_clause_cut_in_the_middle() -> None:
    fixed = corrected("I live in Leeds, sorry, Bradford, my office is still in Leeds though.")
    assert fixed.rstrip(".") in (
        "I live in Bradford",
        "I live in Bradford, my office is still in Leeds though",
    )


@pytest.mark.parametrize(
    "said, known",
    [
        (
            "my new boss Priya actually answers emails, after three years of Tom",
            "[k1] The user's manager is Tom.",
        ),
        ("we broke up last month, it's fine, honestly", "[k1] The user's boyfriend is Leo."),
        ("跟阿杰已经分了 现在一个人挺好", "[k1] 用户的男朋友叫阿杰"),
    ],
)
def test_a_new_manager_or_a_parting_retires_the_old_memory(said: str, known: str) -> None:
    assert ("k1",) in _retired(said, known.removeprefix("[k1] "))


@pytest.mark.parametrize(
    "said",
    [
        "we split up the work so I only do the frontend now",
        "我们分了三组 我在第二组",
        "my sister and her boyfriend split up",
    ],
)
def test_parting_words_about_other_things_retire_no_partner(said: str) -> None:
    assert not any(_retired(said, "The user's girlfriend is Chloe."))


@pytest.mark.parametrize(
    "lines, gone",
    [
        (
            [
                "ok roleplay time: you're a landlord in Lisbon, "
                "I'm a tenant whose sink has been broken a month"
            ],
            "sink",
        ),
        (["来角色扮演 你是面试官 我是刚从腾讯出来的产品经理 开始吧"], "腾讯"),
        (["I'm so drained today, slept maybe four hours, can you keep answers short"], "drained"),
    ],
)
def test_roles_and_a_passing_state_are_not_the_users_memories(lines: list[str], gone: str) -> None:
    assert not any(gone in content for _, content, _ in _close(lines))


def test_a_reminder_after_a_time_keeps_the_thing_to_do_in_the_users_words() -> None:
    found = _close(["明晚八点提醒我给我爸打个电话 他下周做手术"])
    assert any(
        category == "todo" and "给用户的爸爸打个电话" in content for category, content, _ in found
    ), found


@pytest.mark.parametrize(
    "said",
    [
        "we split up in groups of three for the project",
        "we broke up for lunch and came back at 2",
        "我爸和我妈十年前就离婚了",
        "这个月房租跟室友分了，一人一半",
    ],
)
def test_splitting_other_things_retires_no_partner(said: str) -> None:
    known = "The user's girlfriend is Chloe." if said.isascii() else "用户的女朋友叫小敏。"
    assert not any(_retired(said, known))


@pytest.mark.parametrize(
    "lines, kept",
    [
        (["My mom and I moved to Austin last month."], "Austin"),
        (
            ["my parents are flying in on friday and I need to pick them up at the airport"],
            "airport",
        ),
        (
            ["you're a lifesaver, I'm a mess today. I just started at Google as a data engineer."],
            "Google",
        ),
        (["Let's roleplay a job interview. My interview at Stripe is next Tuesday."], "Stripe"),
        (
            ["I'm so tired today, I've been working night shifts at the hospital for a year."],
            "night shifts",
        ),
    ],
)
def test_family_compliments_and_role_play_setups_keep_the_users_facts(
    lines: list[str], kept: str
) -> None:
    assert any(kept in content for _, content, _ in _close(lines)), _close(lines)


@pytest.mark.parametrize("said", ["老板提醒我明天交报告", "医生提醒我下周复查"])
def test_someone_elses_reminder_keeps_who_reminded(said: str) -> None:
    assert not any(re.match(r"用户(?:老板|医生)", content) for _, content, _ in _close([said]))


def test_a_capitalized_word_after_my_new_boss_is_no_name() -> None:
    assert not any(_retired("my new boss LOVES meetings", "The user's manager is Kevin."))


@pytest.mark.parametrize(
    "said, todos",
    [
        (
            "I need to pay the deposit by friday, and I have to sign the lease on the 20th",
            {("deposit", date(2026, 4, 10)), ("lease", date(2026, 4, 20))},
        ),
        (
            "下周一交材料 然后月底前要把尾款结清",
            {("材料", date(2026, 4, 13)), ("尾款", date(2026, 4, 30))},
        ),
    ],
)
def test_things_to_do_each_with_its_day_are_todos_of_their_own(
    said: str, todos: set[tuple[str, date]]
) -> None:
    found = _extracted([said])
    got = {
        (word, c.expires_at.date() - timedelta(days=1))
        for c in found
        if c.category == "todo" and c.expires_at
        for word, _ in todos
        if word in c.content
    }
    assert got == todos, [(c.content, c.expires_at) for c in found]


def test_one_thing_with_a_note_after_it_stays_one_todo() -> None:
    found = _close(["Dentist on Wednesday at 4:15, bring the insurance forms"])
    assert [category for category, _, _ in found] == ["todo"]


@pytest.mark.parametrize(
    "lines, kept, gone",
    [
        # Any adverb in -ly between "I" and the verb; the verb, not the adverb, agrees.
        (["i seriously love sourdough"], "loves sourdough", "seriouslies"),
        (["I officially quit my job at the bank"], "officially quit", "officiallies"),
        # Contractions typed without their apostrophe.
        (["im allergic to shellfish"], "allergic to shellfish", " im "),
        # A slip of several words for the phrase after "to".
        (["I'm allergic to walnuts, sorry I mean pine nuts"], "allergic to pine nuts", "walnuts"),
        # A value swapped in the next message, typed in lower case and without an apostrophe.
        (["my train to leeds leaves at 9 tomorrow", "oops its york not leeds"], "york", "leeds"),
        # A reason after a request, with no stop between them.
        (["no olives on mine pls i truly hate olives"], "hates olives", "pls"),
        # A condition said as a reminder, after a laugh.
        (["skip the bread for me haha, gluten intolerant remember"], "gluten intolerant", "bread"),
        # Chinese: a value of another length corrected, a birthday in the family, an estate.
        (["我对花生过敏 哦不对 是芒果 花生没事"], "对芒果过敏", "花生"),
        (["我老公生日8月3号 帮我想想送啥"], "8月3号", "想想"),
        (["我家小区叫翠湖苑 停车位太少了"], "小区叫翠湖苑", "停车"),
    ],
)
def test_chat_wordings_of_facts_and_slips(lines: list[str], kept: str, gone: str) -> None:
    contents = " | ".join(c.content for c in _extracted(lines))
    assert kept in contents
    assert gone not in contents


@pytest.mark.parametrize(
    "said, known",
    [
        ("Marco quit last month so now I report to Dana", "The user's manager is Marco."),
        ("cancelled my Spotify, the ads on the free tier are fine", "The user pays for Spotify."),
        ("switched to T-Mobile, way cheaper", "The user is on Verizon."),
        ("游泳先放一放了 最近加班太多", "用户在学游泳。"),
        ("I finally landed a job at the library!", "The user is unemployed."),
        ("跟女朋友在一起半年了 想带她去看海", "用户目前单身。"),
    ],
)
def test_things_given_up_or_changed_in_chat_retire_the_old_memory(said: str, known: str) -> None:
    assert ("k1",) in _retired(said, known)


@pytest.mark.parametrize(
    "said, known",
    [
        ("I dropped my kid at school and ditched the car", "The user has a kid named Leo."),
        ("my brother got the job at Google", "The user is unemployed."),
        ("Marco is still around but now I report to Dana", "The user's manager is Marco."),
        ("这个项目先放一放了", "用户在学游泳。"),
    ],
)
def test_other_peoples_news_and_things_still_so_retire_nothing(said: str, known: str) -> None:
    assert ("k1",) not in _retired(said, known)


@pytest.mark.parametrize(
    "lines, word, day",
    [
        # The day of the thing in the sentence before: the memory lasts until that day.
        (
            ["our anniversary is on June 20th.", "remind me 3 days before to book a table"],
            "table",
            date(2026, 6, 20),
        ),
        (["纪念日是6月20号 提前两天提醒我买礼物"], "礼物", date(2026, 6, 20)),
        # Two things, each with its day, with a space for a comma.
        (["后天上午九点面试 下周一之前还得交体检报告"], "体检", date(2026, 4, 13)),
    ],
)
def test_a_reminder_some_days_before_a_day_lapses_on_that_day(
    lines: list[str], word: str, day: date
) -> None:
    found = _extracted(lines)
    lapses = [
        c.expires_at.date() - timedelta(days=1)
        for c in found
        if c.category == "todo" and c.expires_at and word in c.content
    ]
    assert lapses == [day], [(c.content, c.expires_at) for c in found]


def test_a_reminder_before_a_day_lasts_until_the_day_itself() -> None:
    today = date(2026, 4, 8)
    assert resolve_date("15号早上体检 前一天晚上不能吃东西", today) == date(2026, 4, 15)
    assert resolve_date("15号体检 前一天提醒我别吃晚饭", today) == date(2026, 4, 15)
    assert resolve_date("remind me a week before May 3 to renew it", today) == date(2026, 5, 3)


def test_a_memory_named_then_scratched_is_forgotten_a_slip_scratched_is_not() -> None:
    known = "[k1] The user has a gym membership at PureGym."
    asked = _extracted(["that gym membership stuff i told you, scratch it"], known)
    assert [c.confirms for c in asked if c.forget] == ["k1"]
    slip = _extracted(["the curry was too spicy, scratch that, way too spicy"], known)
    assert not any(c.forget for c in slip)


@pytest.mark.parametrize(
    "lines, kept",
    [
        # A clause about the user after a space, in a sentence that asks for something.
        (["下班太晚 不想开火 推荐点外卖吧 对了我不吃芹菜"], "不吃芹菜"),
        (["我是猎头 帮我看看这份简历写得咋样"], "用户是猎头"),
        # How often and how long said before the taste; the particle closing it dropped.
        (["我现在只喝美式"], "只喝美式"),
        (["我最近不吃羊肉了"], "不吃羊肉"),
    ],
)
def test_chinese_chat_clauses_about_the_user_are_read(lines: list[str], kept: str) -> None:
    contents = [c.content for c in _extracted(lines)]
    assert any(content.endswith(kept) for content in contents), contents


@pytest.mark.parametrize(
    "lines",
    [
        # A question typed without its mark.
        ["明天第一天上班一般要带啥"],
        # A text to translate, and a chat message pasted with its sender.
        ["帮我把这句翻成英文 客气一点：货款到账后我们两天内发货"],
        ["物业发的 帮我回一下\n\n【王经理】：下周三停水一天 请各位业主提前储水"],
    ],
)
def test_questions_and_pasted_texts_are_no_memories(lines: list[str]) -> None:
    assert _extracted(lines) == []


@pytest.mark.parametrize(
    "said, known",
    [
        # Carrier names as ordinary words, a carrier's name as a person's.
        ("买了个移动硬盘 换了个2T的", "用户用的是中国电信"),
        ("最近电信诈骗好多 换了个手机号", "用户用的是中国联通"),
        ("公司宽带转到电信了", "用户用的是中国联通的手机号"),
        ("I went with Rogers to the hockey game", "The user is on Verizon."),
        # A partner in work, a doctor seen.
        ("my partner in crime for this project is Dev", "The user is single."),
        ("im seeing Dr Patel on friday about my knee", "The user is single."),
        # Still looking, starting something else.
        ("I'm still looking for a new job, had 3 interviews", "The user is job hunting."),
        ("I start on my thesis tomorrow", "The user is unemployed."),
        # Given up once, by someone else, or someone else's thing.
        ("cancelled the gym class today, too tired", "The user goes to the gym every morning."),
        ("I ditched coffee this morning and had tea", "The user drinks coffee every morning."),
        ("这个方案先放一放", "用户在用Notion做方案"),
        ("孩子的钢琴先放一放", "用户在学钢琴"),
        ("Sarah quit yoga", "The user goes to yoga on Tuesdays."),
    ],
)
def test_words_of_change_about_other_things_retire_nothing(said: str, known: str) -> None:
    assert ("k1",) not in _retired(said, known)


@pytest.mark.parametrize(
    "said",
    [
        "我们小区叫什么来着",
        "我们小区是老小区 没电梯",
        "我只看了一半",
        "我只吃了一口",
        "我也讨厌他",
    ],
)
def test_chinese_sentences_that_name_no_lasting_fact_store_nothing(said: str) -> None:
    assert _extracted([said]) == []


def test_a_lead_before_a_day_in_a_story_of_the_past_makes_no_todo() -> None:
    found = _extracted(["my exam is on the 20th", "I started revising three weeks before"])
    assert not any("revising" in c.content and c.category == "todo" for c in found)


def test_corrections_swapped_in_the_next_message_keep_the_memory() -> None:
    zh = _extracted(["我下周三去上海出差", "不对 是周四不是周三"])
    assert [c.content for c in zh if c.category == "todo"] == ["用户下周四去上海出差（2026-04-16）"]
    en = [c.content for c in _extracted(["my cat is called Luna", "sorry its nova not luna"])]
    assert any("Nova" in content for content in en) and not any("Luna" in c for c in en)


def test_a_role_keeps_only_its_own_clause() -> None:
    assert [c.content for c in _extracted(["我是测试 别理我"])] == ["用户是测试"]


@pytest.mark.parametrize(
    "said, category",
    [
        # A birthday by the age it brings is a fact about the family, not a thing to do...
        ("my son is turning 5 on saturday", "fact"),
        ("my dad's 70th is on august 2nd", "fact"),
        # ... unless something is planned for it.
        (
            "my son is turning 5 on saturday and we're throwing a party, need to order balloons",
            "todo",
        ),
    ],
)
def test_a_birthday_by_its_age_is_a_fact_unless_something_is_planned(
    said: str, category: str
) -> None:
    assert [c.category for c in _extracted([said])] == [category]


def test_a_text_quoted_line_by_line_after_a_request_is_not_the_users() -> None:
    message = (
        "could you help me answer this? it's below:\n\n"
        "> Hello all,\n> The gym on level 2 closes for repairs from May 4.\n"
        "> Lockers must be emptied.\n"
        "> Thanks, Facilities\n\n"
        "I'm a night nurse so I only get to the gym at 7am, is there another one nearby?"
    )
    contents = " | ".join(c.content for c in _extracted([message]))
    assert "night nurse" in contents
    assert "Lockers" not in contents and "Facilities" not in contents


@pytest.mark.parametrize(
    "said, fixed",
    [
        # The word of the new value's shape is the one corrected, not the last word said.
        ("我的电脑是air m2 装了docker很卡，哦不对，是m3", "air m3 装了docker"),
        ("我用python3.9跑的 不对 是python3.11", "python3.11跑的"),
        # A name in words still replaces the name said last, whole.
        ("我用的是VS Code，不对，是Cursor", "我用的是Cursor"),
    ],
)
def test_a_latin_value_corrected_in_chinese_replaces_the_one_of_its_shape(
    said: str, fixed: str
) -> None:
    assert fixed in corrected(said)


def test_a_year_corrected_after_oh_wait_in_the_next_message() -> None:
    found = _extracted(
        [
            "I drive a 2016 Mazda 3, how often should I rotate the tires",
            "oh wait it's actually a 2017",
        ]
    )
    contents = [c.content for c in found]
    assert any("2017" in content for content in contents), contents
    assert not any("2016" in content for content in contents), contents


@pytest.mark.parametrize(
    "lines, contents",
    [
        # 他 inside a word is no "he": the guitar given up is the user's.
        (["吉他暂时不练了 手指疼"], None),
        (["顺便我住在杭州"], ["用户住在杭州"]),
        # Two short things to do in Chinese, each with its day.
        (
            ["下周三体检 月底交房租"],
            ["用户下周三体检（2026-04-15）", "用户月底交房租（2026-04-30）"],
        ),
        # Someone else's appointment: a brother's, named; his, whoever he is, not kept.
        (["我哥下周三体检"], ["用户的哥哥下周三体检（2026-04-15）"]),
        (["他下周三体检"], []),
    ],
)
def test_chinese_chat_things_to_do_and_given_up(
    lines: list[str], contents: list[str] | None
) -> None:
    found = _extracted(lines, "[k1] 用户在练吉他")
    if contents is None:
        assert any("k1" in c.contradicts for c in found)
    else:
        assert [c.content for c in found] == contents


def test_a_reminder_asked_after_a_fact_a_rule_reads_is_a_todo_too() -> None:
    found = _extracted(["我女儿生日是10月1号 提前三天提醒我订蛋糕"])
    categories = sorted(c.category for c in found)
    assert categories == ["fact", "todo"], [(c.category, c.content) for c in found]
    todo = next(c for c in found if c.category == "todo")
    assert "蛋糕" in todo.content and todo.expires_at is not None


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "我们组长总说“先上线再说”，我真的受不了",
            "用户说：“我们组长总说‘先上线再说’，我真的受不了”",
        ),
        (
            'that "quick fix" of mine broke prod again',
            "The user said: \"that 'quick fix' of mine broke prod again\".",
        ),
    ],
)
def test_quotes_inside_a_quotation_become_the_inner_kind(said: str, memory: str) -> None:
    assert about_the_user(said) == memory


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("I just found out I'm pregnant!!! 🎉 what should I do first??", "pregnant"),
        ("Just got a puppy!!! 🐶 crate training tips??", "The user just got a puppy."),
        ("Got laid off today. 8 years at the same company.", "The user got laid off today."),
        ("I was diagnosed with ADHD last year, any tips for focus", "diagnosed with ADHD"),
        ("i got laid off today :(", "The user got laid off today."),
        ("i'm pregnant omg", "The user is pregnant."),
        ("we just got engaged!! help me plan", 'The user said: "We just got engaged".'),
        ("我怀孕了！！第一胎 好紧张", "用户怀孕了"),
        ("今天被裁了 干了八年 不知道该干嘛", "用户今天被裁了"),
        ("上个月确诊了甲减 要吃一辈子药吗", "用户上个月确诊了甲减"),
    ],
)
def test_a_turn_of_the_users_life_said_as_news_is_kept(said: str, memory: str) -> None:
    found = [c for c in _extracted([said]) if memory in c.content]
    assert found and found[0].category == "fact", _extracted([said])


@pytest.mark.parametrize(
    "said",
    [
        "my sister just got engaged, what do I get her",
        "got fired up about this idea for a side project",
        "他被裁了 我该怎么安慰他",
        "我确诊了",
        "我同事结婚了 随多少份子合适",
    ],
)
def test_someone_elses_news_or_a_turn_of_phrase_is_no_turn_of_the_users_life(said: str) -> None:
    assert not any(
        w in c.content for c in _extracted([said]) for w in ("engaged", "fired", "被裁", "结婚")
    )


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("I genuinely can't afford the flight", "the user genuinely can't afford the flight"),
        ("I honestly don't care", "the user honestly doesn't care"),
        ("I work at Acme and live in Leeds", "the user works at Acme and lives in Leeds"),
        ("I'm a nurse and work nights", "the user is a nurse and works nights"),
        ("I have two kids and love hiking", "the user has two kids and loves hiking"),
        # An infinitive's second verb stays as it is.
        ("I want to move and live in Spain", "the user wants to move and live in Spain"),
        ("I like cats and dogs", "the user likes cats and dogs"),
        (
            "I work nights and usually sleep till noon",
            "the user works nights and usually sleeps till noon",
        ),
    ],
)
def test_every_verb_of_the_user_agrees_and_no_adverb_is_inflected(said: str, memory: str) -> None:
    assert third_person(said) == memory


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("plz explain async/await in python like im dumb", None),
        ("Draft a text to my neighbor asking if they can water my plants while I'm away", None),
        ("write me a haiku about my cat", None),
        ("帮我写一段生日祝福 给我妈的", None),
        # What follows the task's clause is the user's.
        ("explain this like I'm a backend person, I write Go all day and barely touch CSS", "Go"),
        ("帮我写封邮件给导师，我研二了，开题还没过", "研二"),
        ("Explain quantum computing to me, I'm a physics student.", "physics student"),
    ],
)
def test_a_task_given_to_the_assistant_is_no_memory_but_what_follows_it_is(
    said: str, kept: str | None
) -> None:
    found = [c.content for c in _extracted([said])]
    if kept is None:
        assert found == []
    else:
        assert any(kept in content for content in found), found


def test_a_second_verb_after_what_a_rule_read_agrees() -> None:
    found = [c.content for c in _extracted(["I'm a new sales manager and meet 20 people a week"])]
    assert found == ["The user is a new sales manager and meets 20 people a week."]


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("俺是种苹果的 在陕西洛川 今年苹果价格太低了", "用户是种苹果的"),
        ("本人38岁，高血压，医生让我少吃盐", "用户38岁，高血压，医生让用户少吃盐"),
    ],
)
def test_the_other_words_chinese_users_call_themselves_become_the_user(
    said: str, memory: str
) -> None:
    found = [c.content for c in _extracted([said])]
    assert any(content.startswith(memory) for content in found), found
    assert not any("俺" in content or "本人" in content for content in found)


def test_an_english_title_right_after_chinese_does_not_end_a_sentence() -> None:
    from everbot_memory.extract.rules.sentences import sentences

    assert sentences("给我的导师Dr. Zhang发了邮件，说我下周要请假") == (
        "给我的导师Dr. Zhang发了邮件，说我下周要请假",
    )


def test_a_question_opening_with_ruhe_is_no_memory() -> None:
    assert _extracted(["如何用 pandas 把两个 DataFrame 按照 user_id 合并，保留左边全部数据"]) == []


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        ("Write down that I'm allergic to peanuts.", "The user is allergic to peanuts."),
        ("Don't forget that my birthday is May 3.", "The user's birthday is May 3."),
        ("jot down that my router is in the hallway closet", "The user's router is in the"),
        ("please make a note that I take my coffee black", "The user takes their coffee black."),
    ],
)
def test_a_request_to_write_down_or_not_forget_keeps_what_it_names(said: str, memory: str) -> None:
    found = [c.content for c in _extracted([said])]
    assert any(content.startswith(memory) for content in found), found


@pytest.mark.parametrize(
    "said, known, target",
    [
        # Two memories alike in words: the one of the topic the request names.
        (
            "hey could you stop keeping my weight on file? still trying to cut tho",
            [("k1", "The user weighs 210 pounds."), ("k2", "The user is trying to lose weight.")],
            "k1",
        ),
        (
            "之前跟你提过我在备孕那事 能把那条删了不",
            [("k1", "用户正在备孕。"), ("k2", "用户喜欢吃辣。")],
            "k1",
        ),
        (
            "我之前跟你说过我工资多少 那条你给我忘了吧",
            [("k1", "用户月薪1.2万。"), ("k2", "用户在成都工作。")],
            "k1",
        ),
        ("我把app删了 换了个新的", [("k1", "用户用小红书。")], None),
    ],
)
def test_forget_requests_by_topic_and_asked_in_chinese(
    said: str, known: list[tuple[str, str]], target: str | None
) -> None:
    from everbot_memory.extract.rules.updates import forget_request

    assert forget_request(said, known) == target


def test_a_breakup_said_in_chinese_retires_the_partner_and_sharing_a_case_does_not() -> None:
    known = [("k1", "用户有女朋友，叫小雅。"), ("k2", "用户是UI设计师。")]
    assert changed_memories("最近也没啥事 跟小雅分了 正好有时间弄简历", known) == ("k1",)
    assert changed_memories("周末跟小雅分了一箱啤酒", known) == ()
    assert changed_memories("房租跟小雅分了，一人一半", known) == ()
    assert changed_memories("剩下的披萨我跟小雅分了", known) == ()


def test_a_friends_plan_told_in_chinese_is_no_memory_of_the_users() -> None:
    found = RuleExtractor().extract(
        [{"role": "user", "content": "我一个朋友想去日本读语言学校 然后考修士"}]
    )
    assert found == []

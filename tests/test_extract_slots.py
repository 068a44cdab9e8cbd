"""Single-valued facts read as slots (a new value said as the present retires the old one),
spoken date shapes, stories of the past, and how a taste is said."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from freezegun import freeze_time

from everbot_memory.core.candidate import Candidate
from everbot_memory.extract.rules import RuleExtractor
from everbot_memory.extract.rules.dates import resolve_date
from everbot_memory.extract.rules.extractor import _kind
from everbot_memory.extract.rules.slots import new_values, replaced_by
from everbot_memory.extract.rules.updates import changed_memories
from everbot_memory.extract.rules.wording import corrected

KNOWN = [
    ("home", "The user lives in Exeter."),
    ("job", "The user works at Brightline Media."),
    ("editor", "The user writes code in Sublime Text."),
    ("phone", "The user has a Galaxy S21."),
    ("boss", "The user's manager is Tomasz."),
    ("role", "The user is a junior backend developer."),
    ("zhome", "用户住在南京鼓楼区"),
    ("zjob", "用户在华为做嵌入式开发"),
    ("znotes", "用户用印象笔记整理资料"),
]


@pytest.mark.parametrize(
    "said, retired",
    [
        ("finally got the keys to our flat in Norwich", ["home"]),
        ("we're living in Cardiff now and the rent is half", ["home"]),
        ("after we relocated to Dundee the commute got easy", ["home"]),
        ("my first week at Halcyon Labs was a blur", ["job"]),
        ("started at Orbital Freight on Tuesday", ["job"]),
        ("been on Helix since February and I don't miss anything", ["editor"]),
        ("made the switch to PyCharm over the holidays", ["editor"]),
        ("I'm reporting to Ingrid now, she's great", ["boss"]),
        ("去年年底跳槽去了小红书", ["zjob"]),
        ("我们搬来厦门三个多月了", ["zhome"]),
        ("资料现在都用语雀整理了", ["znotes"]),
        ("we bought a tiny stone cottage in Whitby!! how do I find a plumber?", ["home"]),
        ("上个月起转 Obsidian 了，以前的印象笔记留着当归档", ["znotes"]),
        ("入职阿里第二个月了，节奏比想象的快", ["zjob"]),
        ("来厦门快三个月了，台风天真吓人", ["zhome"]),
        ("作为一个新厦门人，沙茶面还没吃腻", ["zhome"]),
        # "其他" ("the other two days") names no one;
        # a place may begin with a character of time ("天津"); a space ends a chat clause.
        ("搬到天津快一个月了 现在每周坐城际去南京上三天班 其他两天远程", ["zhome"]),
        ("上周刚入职字节 leader让我写个双月OKR", ["zjob"]),
        ("印象笔记最近卡得要死 已经全搬到obsidian了", ["znotes"]),
    ],
)
def test_a_new_value_said_as_the_present_retires_the_old(said: str, retired: list[str]) -> None:
    assert replaced_by(said, KNOWN)[1] == retired


@pytest.mark.parametrize(
    "said",
    [
        "should we move to Norwich at some point?",
        "thinking about switching to PyCharm",
        "my brother just moved to Cardiff",
        "I still use Sublime Text for quick notes",
        "我朋友跳槽去了小红书",
        "要不要搬去厦门呢",
        "I switched from PyCharm back to Sublime Text",
        "we compared Obsidian and Notion for the team wiki, both are fine",
        "if the visa comes through, we'd move to Dundee in spring",
        "如果拿到 offer，就跳槽去小红书",
        "来医院一周了，还没出院",
        "我来厦门出差三天了",
        "我是新来的人，多多关照",
        "first day at work went fine, the team is nice",
        "my first week at school was rough",
        "周末搬到了朋友家住两天",
        # Lower case after "first week at" is as often a gym, a church or a diet.
        "first month at crossfit has been brutal",
        "first day at church in years",
        # "其他人", "其他组" are others; a roof or the dawn is no home.
        "其他人都搬到天津了 就我还在南京",
        "我们组其他人都跳槽去小红书了",
        "把花都搬到天台了",
        "搬到天亮才搬完",
    ],
)
def test_plans_questions_others_and_the_same_value_retire_nothing(said: str) -> None:
    assert replaced_by(said, KNOWN)[1] == []


def test_a_value_said_to_be_left_is_not_the_new_one() -> None:
    assert [v.value for v in new_values("sold my old Pixel, the iPhone is my daily now")] == [
        "iPhone"
    ]
    assert [v.value for v in new_values("Evernote 已经卸了，全换 Obsidian 了")] == ["Obsidian"]


def test_the_new_value_is_kept_as_a_memory_that_replaces_the_old() -> None:
    messages = [
        {
            "role": "user",
            "content": "any tips for a first garden? got the keys to our place in Norwich!",
        }
    ]
    known = "[home] The user lives in Exeter."
    with freeze_time(datetime(2026, 5, 4, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, known)
    assert [(c.content, c.contradicts) for c in found if "Norwich" in c.content] == [
        ("The user lives in Norwich.", ("home",))
    ]


@pytest.mark.parametrize(
    "said, day",
    [
        ("下下周二去拔牙", date(2026, 5, 19)),
        ("这周末要搬家", date(2026, 5, 10)),
        ("明晚请同事吃饭", date(2026, 5, 5)),
        ("下礼拜四交方案", date(2026, 5, 14)),
        ("半个月后复诊", date(2026, 5, 19)),
        ("下个月初交房租", date(2026, 6, 1)),
        ("6月中旬考驾照", date(2026, 6, 15)),
        ("the vet visit is on the 21st of May", date(2026, 5, 21)),
        ("we fly out in a couple of days", date(2026, 5, 6)),
        ("the kitchen gets fitted tmrw", date(2026, 5, 5)),
        ("review is two weeks from today", date(2026, 5, 18)),
    ],
)
def test_spoken_date_shapes(said: str, day: date) -> None:
    assert resolve_date(said, date(2026, 5, 4)) == day  # a Monday


def test_a_bare_weekend_is_no_day() -> None:
    assert resolve_date("周末一般在家烤面包", date(2026, 5, 4)) is None


def _close(
    lines: list[str], day: datetime = datetime(2026, 5, 4, 12, tzinfo=timezone.utc)
) -> list[Candidate]:
    messages = [{"role": "user", "content": line} for line in lines]
    with freeze_time(day):
        return RuleExtractor().extract(messages, "")


def test_a_story_of_a_weekend_gone_by_is_no_todo() -> None:
    for candidate in _close(["went to my first pottery class this weekend and made a wonky mug"]):
        assert candidate.category != "todo", candidate.content


def test_an_event_on_a_coming_day_is_a_todo() -> None:
    found = _close(["my half marathon is on the 17th, first one ever"])
    assert [(c.category, c.expires_at.date().isoformat()) for c in found if c.expires_at] == [
        ("todo", "2026-05-18")
    ]


@pytest.mark.parametrize(
    "fitted, said",
    [
        ("fact", "I'd rather take the night train than fly, airports wear me out"),
        ("fact", "honestly I can't stand open-plan offices, too much noise"),
        ("experience", "我实在受不了太吵的咖啡馆，一般去图书馆写东西"),
        ("fact", "比起外卖我更愿意自己做饭，干净一些"),
    ],
)
def test_a_taste_is_a_preference_whatever_the_model_says(fitted: str, said: str) -> None:
    assert _kind(said, fitted) == "preference"  # type: ignore[arg-type]


def test_a_plain_fact_keeps_the_models_kind() -> None:
    assert _kind("my daughter started second grade this fall", "fact") == "fact"
    assert _kind("our team all uses Kotlin for the app", "fact") == "fact"


@pytest.mark.parametrize(
    "fitted, said, kind",
    [
        ("fact", "I only use Firefox on the work laptop", "skill_usage"),
        ("fact", "I do all my bookkeeping in Excel, old habits", "skill_usage"),
        ("experience", "剪视频我一直用 Premiere，快捷键都背熟了", "skill_usage"),
        ("fact", "我 Excel 用得还行，透视表会一点", "skill_usage"),
        ("fact", "以后回复我先给结论，再讲细节", "preference"),
        ("workflow", "going forward keep your answers under five lines", "preference"),
        # Said as a rule from now on, or with a language's name: still how to be answered.
        ("skill_usage", "以后都用英文回答我吧，我在练英语阅读", "preference"),
        ("decision", "from now on answer me in Spanish, I'm practising", "preference"),
        ("fact", "saturday mornings I do the laundry and the big shop", "workflow"),
        ("experience", "every friday night we order pizza and watch a film", "workflow"),
        ("fact", "I only check slack at 11 and at 4", "workflow"),
        ("experience", "Saturday we drove up to the lake", "experience"),
    ],
)
def test_the_users_own_tool_and_how_they_want_answers(fitted: str, said: str, kind: str) -> None:
    assert _kind(said, fitted) == kind  # type: ignore[arg-type]


def test_a_promotion_gives_the_role_a_new_value() -> None:
    values, retired = replaced_by("just got promoted to senior developer, still sinking in", KNOWN)
    assert [(v.slot, v.value) for v in values] == [("role", "senior developer")]
    assert retired == ["role"]


def test_graduating_said_without_a_subject_ends_the_student_stage() -> None:
    known = [("k1", "用户在读博三，做蛋白质结构预测"), ("k2", "用户喜欢爬山")]
    assert changed_memories("终于毕业了，论文总算过了", known) == ("k1",)
    assert changed_memories("我表妹毕业了，在找工作", known) == ()


def test_the_selector_falls_back_to_words_without_the_embeddings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from everbot_memory.extract.rules import selector as selector_module

    shipped = selector_module.load_selector()
    assert shipped is not None and shipped.dense is not None
    monkeypatch.setattr(selector_module, "embedder", lambda: None)
    said = "I've been a night-shift nurse for six years now."
    assert shipped.in_use_threshold == shipped.threshold
    assert shipped.judge(said) == shipped.judge_features(selector_module.features(said))


def test_the_selector_judges_by_meaning_with_the_embeddings() -> None:
    from everbot_memory.extract.rules import selector as selector_module

    shipped = selector_module.load_selector()
    if selector_module.embedder() is None:
        pytest.skip("the embeddings extra is not installed")
    assert shipped is not None and shipped.dense is not None
    fact = shipped.judge("我在一家做光伏逆变器的公司当硬件工程师")
    chat = shipped.judge("ok sounds good, thanks a lot")
    assert fact.probability > shipped.in_use_threshold > chat.probability


@pytest.mark.parametrize(
    "said, kept",
    [
        ("我打算去杭州读研，哦不对，是苏州", "我打算去苏州读研"),
        ("我下周五飞广州，不对，周六", "我下周六飞广州"),
        ("我妈生日是腊月，啊不对，是冬月", "我妈生日是冬月"),
    ],
)
def test_a_chinese_correction_replaces_the_value_whole(said: str, kept: str) -> None:
    assert corrected(said) == kept


def test_a_pasted_report_or_a_question_without_a_mark_is_no_memory() -> None:
    report = (
        "This sprint the data team shipped the new ingestion pipeline, moved the nightly jobs "
        "to the new scheduler, cut the warehouse bill by a fifth, onboarded two analysts, "
        "rewrote the retention dashboards, fixed the flaky exports, documented the lineage of "
        "every table we own, and still found time to run a small hack day on the side, where "
        "two of the newer people built a tiny tool that flags stale dashboards every morning."
    )
    assert _close([report]) == []
    assert _close(["从杭州开车到黄山大概要多久"]) == []


def test_a_chinese_correction_of_a_count_keeps_the_later_one() -> None:
    assert corrected("我家老大读初一，不对，初二了") == "我家老大读初二了"
    assert corrected("我爸今年六十五岁，啊不对，六十六岁") == "我爸今年六十六岁"


@pytest.mark.parametrize(
    "said, today, day",
    [
        ("端午前把粽子寄给外婆", date(2026, 5, 1), date(2026, 6, 18)),
        ("中秋回老家看爸妈", date(2027, 8, 20), date(2027, 9, 15)),
        ("五一之前要把驾照考下来", date(2026, 3, 2), date(2026, 4, 30)),
        ("过年前得把年终总结交了", date(2027, 1, 4), date(2027, 2, 5)),
    ],
)
def test_holidays_and_the_day_before_them(said: str, today: date, day: date) -> None:
    assert resolve_date(said, today) == day


@pytest.mark.parametrize(
    "said",
    ["I'm on payments now, ping me there", "no strong thoughts now, ask me later"],
)
def test_a_tool_name_is_never_read_inside_another_word(said: str) -> None:
    # "ts(?= now)" names TypeScript only as a word of its own.
    assert [v.value for v in new_values(said) if v.slot == "language"] == []


@pytest.mark.parametrize(
    "said, known, retired",
    [
        ("finally got bumped up to principal designer", "The user is a senior designer.", True),
        ("转测试岗快半年了，点点点也挺好", "用户是一名前端开发工程师", True),
        ("转岗去当产品经理了", "用户是一名后端工程师", True),
        (
            "we switched our builds from CircleCI to Buildkite",
            "The team's CI runs on CircleCI.",
            True,
        ),
        ("CI 已经全部迁到 GitLab CI 了", "用户团队用 Jenkins 做 CI", True),
        ("thinking about moving the builds to Buildkite", "The team's CI runs on CircleCI.", False),
        ("my brother got bumped up to principal", "The user is a senior designer.", False),
    ],
)
def test_a_new_post_or_build_service_retires_the_old(said: str, known: str, retired: bool) -> None:
    assert bool(replaced_by(said, [("k1", known)])[1]) is retired


@pytest.mark.parametrize(
    "said", ["入职前要体检，医院有推荐吗", "入职手续办完了", "材料周五前交，入职要用"]
)
def test_what_follows_joining_is_not_always_a_workplace(said: str) -> None:
    assert [v for v in new_values(said) if v.slot == "employer"] == []


@pytest.mark.parametrize(
    "said, known, retired",
    [
        ("you have my birthday wrong, it's May 13.", "The user's birthday is on May 3.", True),
        ("你记错了，我生日是3月18号。", "用户的生日是3月8日", True),
        ("my birthday is 14 May, btw", "The user's birthday is May 14th.", False),
        ("my sister's birthday is May 2", "The user's birthday is May 14.", False),
        ("is my birthday May 3 or May 4 on the form?", "The user's birthday is May 14.", False),
        ("他生日是5月3号", "用户的生日是3月8日", False),
    ],
)
def test_another_birthday_said_as_the_users_corrects_the_known_one(
    said: str, known: str, retired: bool
) -> None:
    assert replaced_by(said, [("bday", known)])[1] == (["bday"] if retired else [])


def test_a_corrected_birthday_is_a_fact_not_a_todo() -> None:
    messages = [{"role": "user", "content": "你记错了，我生日是3月18号，不是3月8号"}]
    with freeze_time(datetime(2026, 3, 10, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, "[bday] 用户的生日是3月8日")
    assert [(c.category, c.contradicts) for c in found] == [("fact", ("bday",))]
    assert all("3月8" not in c.content for c in found)


def test_a_tool_switch_kept_as_a_taste_is_the_tool_in_use() -> None:
    messages = [
        {"role": "user", "content": "Notion 我已经不用了，太慢，断网就废，笔记全导到 Obsidian 了"}
    ]
    with freeze_time(datetime(2026, 3, 10, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, "[notes] 用户用 Notion 记笔记")
    assert [c.category for c in found if "Obsidian" in c.content] == ["skill_usage"]


def test_an_explicit_note_of_how_to_answer_is_a_taste() -> None:
    from everbot_memory.extract.rules.extractor import _classify

    assert _classify("以后回复用户不要用 emoji") == "preference"
    assert _classify("From now on answer the user in Spanish.") == "preference"
    assert _classify("The user's wifi is on the second floor.") == "fact"


def test_a_memory_made_to_replace_a_known_one_is_never_a_todo() -> None:
    messages = [
        {"role": "user", "content": "from now on answer me in Spanish please, I'm practising."}
    ]
    with freeze_time(datetime(2026, 9, 14, 12, tzinfo=timezone.utc)):
        found = RuleExtractor().extract(messages, "[lang] The user wants answers in English.")
    assert [(c.category, c.contradicts) for c in found] == [("preference", ("lang",))]


@pytest.mark.parametrize(
    "said, known, retired",
    [
        (
            "spent the weekend moving all my notes out of Notion into Obsidian",
            "The user keeps their notes in Notion.",
            True,
        ),
        ("我把印象笔记里的东西全导进 Obsidian 了", "用户用印象笔记记笔记", True),
        # Out of something that is no tool: nothing moved.
        ("got out of bed to check Notion", "The user keeps their notes in Obsidian.", False),
    ],
)
def test_things_carried_out_of_one_tool_into_another_retire_the_old(
    said: str, known: str, retired: bool
) -> None:
    assert replaced_by(said, [("notes", known)])[1] == (["notes"] if retired else [])


@pytest.mark.parametrize(
    "said, known, retired",
    [
        ("switched teams inside Google, same role", "The user works at Google.", False),
        ("在腾讯内部转到微信支付团队了，还是做后端", "用户在腾讯做后端开发", False),
        ("I switched from Google to Meta", "The user works at Google.", True),
        ("从腾讯离职了，下个月去阿里", "用户在腾讯做后端开发", True),
    ],
)
def test_a_change_inside_the_known_value_keeps_it(said: str, known: str, retired: bool) -> None:
    assert changed_memories(said, [("job", known)]) == (("job",) if retired else ())


def test_a_new_car_is_kept_as_the_model_the_user_named() -> None:
    [value] = new_values("traded in my old Civic for a new RAV4")
    assert (value.slot, value.memory(False), value.memory(True)) == (
        "car",
        "The user drives a RAV4.",
        "用户现在开 RAV4",
    )


@pytest.mark.parametrize(
    "said, kept",
    [
        ("from now on, give me code in TypeScript", True),
        ("from now on answer me in Spanish please, I'm practising", True),
        ("以后回答我尽量短一点，先说结论", True),
        ("以后给我的代码都用 Python 3.12 的写法", True),
        # Not a request to the assistant, or one to forget: no taste.
        ("from now on I will run every morning", False),
        ("以后有条件了再说", False),
        ("以后别再提她", False),
    ],
)
def test_a_request_that_holds_from_now_on_is_a_taste(said: str, kept: bool) -> None:
    from everbot_memory.extract.rules.extractor import _standing_request

    found = _standing_request(said)
    assert (found.category if found else None) == ("preference" if kept else None)


@pytest.mark.parametrize(
    "said, recurring",
    [
        ("我们组周五不发版，上线都放在周二和周四", True),
        ("我是做财务的，月底月初忙成狗", True),
        ("下周二和周四我出差", False),
        ("周五要交报告", False),
    ],
)
def test_weekdays_or_both_ends_of_the_month_named_together_recur(
    said: str, recurring: bool
) -> None:
    from everbot_memory.extract.rules.todos import RECURRING

    assert bool(RECURRING.search(said)) == recurring


@pytest.mark.parametrize(
    "said, known, retired",
    [
        ("back when I worked at Brightline Media we shipped on Fridays", "job", True),
        ("in my Brightline Media days reviews took a week. how to speed them up?", "job", True),
        ("以前在华为上班的时候天天加班，现在轻松多了", "zjob", True),
        ("之前住南京那会儿天天吃鸭血粉丝", "zhome", True),
        # A visit, a plan, another value of before: the known one stands.
        ("when I was at Brightline Media this morning the lobby was packed", "job", False),
        ("back when I worked at Initech the builds were slow", "job", False),
        ("if I worked at Brightline Media again I'd ask for more", "job", False),
    ],
)
def test_a_value_said_as_the_users_before_retires_it(said: str, known: str, retired: bool) -> None:
    values, ids = replaced_by(said, KNOWN)
    assert (known in ids) == retired
    if retired:
        [past] = [v for v in values if v.past]
        assert "used to" in past.memory(False) or "以前" in past.memory(True)


@pytest.mark.parametrize(
    "said, place",
    [
        ("officially a Halifax resident now, the paperwork is done", "Halifax"),
        ("my commute from Hoboken takes forever on rainy days", "Hoboken"),
        ("still unpacking into the Bristol house, the kitchen is chaos", "Bristol"),
        ("广州落户总算批下来了", "广州"),
        ("搬完家了 成都这边的小区绿化特别好", "成都"),
    ],
)
def test_a_home_said_in_passing_is_the_new_one(said: str, place: str) -> None:
    homes = [v.value for v in new_values(said) if v.slot == "home"]
    assert homes == [place]


def test_a_phone_keeps_the_model_named_and_a_question_after_a_space_leaves_the_statement() -> None:
    [value] = new_values("新入手的 Mate 60 Pro 手感真好😄 有没有推荐的手机壳")
    assert (value.slot, value.memory(True)) == ("phone", "用户现在用 Mate 60 Pro")


def test_a_wedding_had_ends_an_engagement_and_a_partner_named_ends_single() -> None:
    engaged = [("k", "The user is engaged to Sam.")]
    assert changed_memories("Sam and I are back from our honeymoon in Kyoto!", engaged) == ("k",)
    assert changed_memories("my sister got married last week", engaged) == ()
    single = [("k", "用户现在单身")]
    assert changed_memories("周末我男朋友说带我去爬山，穿什么鞋好", single) == ("k",)


def test_a_correction_word_is_a_whole_word() -> None:
    said = "资料都导进 obsidian 了，notion 那边的先留着"
    assert corrected(said) == said


@pytest.mark.parametrize(
    "said, wanted",
    [
        ("you don't need to remember my old phone number anymore, it's disconnected", "a"),
        ("之前跟你提过我在吃抗抑郁药那个事，帮我忘掉吧", "b"),
        ("我前任的事你删了吧", "c"),
    ],
)
def test_a_forget_request_in_other_words(said: str, wanted: str) -> None:
    from everbot_memory.extract.rules.updates import forget_request

    known = [
        ("a", "The user's old phone number was 555-0142."),
        ("b", "用户在吃抗抑郁药"),
        ("c", "用户的前女友叫林琳"),
        ("d", "The user likes hiking."),
    ]
    assert forget_request(said, known) == wanted


@pytest.mark.parametrize(
    "said, kept, dropped",
    [
        ("我对芒果过敏，写错了，是菠萝过敏", "菠萝", "芒果"),
        ("I'm allergic to walnuts, typo, pecans", "pecans", "walnuts"),
    ],
)
def test_a_value_corrected_as_a_slip_keeps_the_later_one(
    said: str, kept: str, dropped: str
) -> None:
    contents = " ".join(c.content for c in _close([said]))
    assert kept in contents and dropped not in contents


@pytest.mark.parametrize(
    "said, stored",
    [
        ("瞎想一下啊，假如我辞职去开咖啡店，能撑几年？", False),
        ("just thinking out loud, what if I quit and moved to Lisbon", False),
        ("the dentist one matters, if I miss it they charge a fee", True),
    ],
)
def test_a_hypothetical_after_words_that_lead_in_is_no_memory(said: str, stored: bool) -> None:
    assert bool(_close([said])) == stored


@pytest.mark.parametrize(
    "said, known, retired",
    [
        # A workplace or a home said as where the user is, by its people or its weather.
        ("第一份工资条从网易发的，扣税好狠", "用户在华为做嵌入式开发", False),
        ("网易这边的同事下班都挺早的，我有点不习惯", "用户在华为做嵌入式开发", True),
        ("苏州这边的梅雨季真的难熬，被子都是潮的", "用户住在南京鼓楼区", True),
        (
            "my first payslip from Kestrel Pay came in 🙌 should i max the pension or not?",
            "The user works at Brightline Media.",
            True,
        ),
        (
            "the walk from our place in headingley to the bus is 5 min",
            "The user lives in Exeter.",
            True,
        ),
        # A role taken, a team led.
        (
            "ever since i took the staff engineer role i barely code, maybe 10 lines a week",
            "The user is a junior backend developer.",
            True,
        ),
        ("自从带了这个3个人的测试小组，天天开会", "用户是一名前端开发工程师", True),
        # A tool used for days, the old one missed.
        (
            "week 3 of emacs full time, the only thing i miss from sublime is multi-cursor",
            "The user writes code in Sublime Text.",
            True,
        ),
    ],
)
def test_a_present_value_said_by_its_context_retires_the_old(
    said: str, known: str, retired: bool
) -> None:
    values, ids = replaced_by(said, [("k", known)])
    assert (ids == ["k"]) == retired, values


@pytest.mark.parametrize(
    "said, known, changed",
    [
        ("这学期周二下午归我接娃了", "用户每周四下午负责接孩子放学", True),
        ("standup's at 10:15 since the London team joined", "The user's standup is at 9:30.", True),
        (
            "the rescue terrier we adopted last month hates the vacuum",
            "The user has no pets.",
            True,
        ),
        ("家里的橘猫半夜老跑酷", "用户没有养宠物", True),
        ("这半年跟着同事吃，现在无辣不欢了", "用户不吃辣", True),
        (
            "cooked chicken for the first time in ten years, weird but fine",
            "The user is vegetarian.",
            True,
        ),
        ("my neighbour's rescue terrier hates the vacuum", "The user has no pets.", False),
    ],
)
def test_a_habit_or_a_schedule_said_anew_retires_the_old(
    said: str, known: str, changed: bool
) -> None:
    assert (changed_memories(said, [("k", known)]) == ("k",)) == changed


def test_a_chinese_memory_speaks_of_the_user_in_one_voice() -> None:
    found = _close(["我不吃素了哈，吃了两年素，体检说铁不够，医生让我多吃点牛肉"])
    rewritten = [c.content for c in found if c.content.startswith("用户")]
    assert rewritten and not any("我" in c.replace("我们", "") for c in rewritten)


@pytest.mark.parametrize(
    "lines, kept, dropped",
    [
        (["我生日是3月14号，帮我查下那天是周几", "啊发错了，是3月24号😂"], "3月24", "3月14"),
        (["the vet appointment is on July 8th", "oops I meant July 9th"], "July 9th", "July 8th"),
        (["我每天晚上9点遛狗，呃不对，9点半遛，10点回家"], "9点半", "9点遛"),
    ],
)
def test_a_correction_in_the_next_message_or_after_a_filler_keeps_the_later_value(
    lines: list[str], kept: str, dropped: str
) -> None:
    contents = " ".join(c.content for c in _close(lines))
    assert kept in contents and dropped not in contents


def test_a_yearly_day_is_a_fact_and_a_text_given_to_work_on_holds_no_todo() -> None:
    [birthday] = _close(["我老婆生日是8月9号，我总记不住"]) or [None]
    assert birthday is not None and birthday.category == "fact" and birthday.expires_at is None
    assert _close(["翻译成日语：周三下午三点开会，周五交报告"]) == []
    assert _close(["summarize this for me: the board meets on Monday to vote on the budget"]) == []


@pytest.mark.parametrize(
    "known, said",
    [
        ("The user's employer is Brightline Media.", "first week at my new job at Kestrel Pay"),
        ("The user has a job at Brightline Media.", "I just joined Kestrel Pay"),
        ("用户就职于华为", "我跳槽到网易了"),
        ("The user is based out of Exeter.", "we just moved to Norwich"),
        ("The user calls Exeter home.", "we just moved to Norwich"),
        ("用户现居南京", "我们搬到苏州快两个月了"),
        ("用户在南京生活", "我们搬到苏州快两个月了"),
    ],
)
def test_a_known_home_or_workplace_in_other_words_is_replaced(known: str, said: str) -> None:
    assert replaced_by(said, [("k", known)])[1] == ["k"]


@pytest.mark.parametrize(
    "said, known, changed",
    [
        ("I keep all my recipes in Paprika now", "The user saves recipes in Evernote.", True),
        (
            "we moved the wiki to Outline last sprint",
            "The team keeps its wiki in Confluence.",
            True,
        ),
        ("I now also keep some recipes in Paprika", "The user saves recipes in Evernote.", False),
        (
            "my sister keeps her recipes in Paprika now",
            "The user saves recipes in Evernote.",
            False,
        ),
        (
            "I keep my recipes in Evernote now, as always",
            "The user saves recipes in Evernote.",
            False,
        ),
        ("I'm in Lisbon now for a conference", "The user saves recipes in Evernote.", False),
    ],
)
def test_another_tool_for_the_same_purpose_said_as_now_retires_the_old(
    said: str, known: str, changed: bool
) -> None:
    assert (changed_memories(said, [("k", known)]) == ("k",)) == changed


@pytest.mark.parametrize(
    "known, said",
    [
        # Visits, someone else's news, a part of the value, a period not over.
        ("用户在阿里巴巴工作。", "今天去腾讯开会，腾讯这边的同事很热情。"),
        ("用户住在杭州。", "出差到上海，上海这边的天气太冷了。"),
        ("用户住在杭州。", "来深圳玩了三天，深圳这边的地铁真方便。"),
        (
            "The user works at Stripe.",
            "Back when I was at Stripe's first hackathon, we built a bot.",
        ),
        (
            "The user works at Stripe.",
            "While I was working at Stripe on the migration, I learned Go.",
        ),
        (
            "The user works at Stripe.",
            "During my time at Stripe so far I've shipped three products.",
        ),
        ("用户在阿里巴巴工作。", "之前在阿里开会的时候，老板夸了我。"),
        ("用户在阿里巴巴工作。", "之前在阿里的时候我做前端，后来转了后端，现在还在阿里。"),
        ("The user lives in Berlin.", "When I was living in Berlin-Mitte it was noisy."),
        ("The user lives in Berlin.", "Back when I lived in Berlin's Prenzlauer Berg, I biked."),
        ("The user lives in Berlin.", "We helped my sister unpack in the Leipzig flat."),
        # Roles that are no job, pets that are no one's own, wishes, other people's weddings.
        ("The user is a backend engineer.", "I accepted the reviewer role on that PR."),
        ("The user is a backend engineer.", "I got the main role in our community theater play!"),
        ("The user has no pets.", "My cat allergy is acting up again."),
        ("The user has no pets.", "I fed my neighbor's dog today, our dog-sitting deal."),
        ("用户已经订婚了，未婚夫叫小王。", "我闺蜜上周结婚了。"),
        ("用户已经订婚了，未婚夫叫小王。", "帮我规划一下明年的蜜月路线。"),
        ("用户不吃辣。", "我真希望自己能吃辣了。"),
        # A commute that is not the user's, another weekly thing, a second phone, a dream.
        ("The user lives in Berlin.", "The commute from Potsdam is killing my coworker."),
        ("用户每周三下午负责接孩子。", "从下周开始我每周五加班。"),
        (
            "The user uses an iPhone 13.",
            "Day 3 with the Pixel 8 from work; my iPhone stays my main.",
        ),
        ("The user lives in Berlin.", "Suppose I moved to Lisbon, what would change?"),
        ("The user lives in Berlin.", "I dreamt I moved to Lisbon last night."),
    ],
)
def test_what_leaves_a_known_memory_true_retires_nothing(known: str, said: str) -> None:
    found = RuleExtractor().extract([{"role": "user", "content": said}], f"[k] {known}")
    assert [c.content for c in found if "k" in c.contradicts] == []


@pytest.mark.parametrize(
    "said, kept",
    [
        ("I drink green tea every morning, no milk.", "every morning"),
        ("I always write tests first, no matter what.", "tests first"),
        ("I run five kilometers every morning, sorry, every other morning.", "every other"),
    ],
)
def test_a_no_that_adds_is_no_correction(said: str, kept: str) -> None:
    assert kept in corrected(said) and "every every" not in corrected(said)


def test_only_a_slip_owned_to_corrects_the_message_before() -> None:
    lines = ["My standup is at 9:30 every day.", "No, Python 3.12 please."]
    assert any("9:30" in c.content for c in _close(lines))
    assert not any(
        "代码" in c.content for c in _close(["我明天下午3点开会。", "不对，你的代码有bug。"])
    )


def test_a_title_and_a_word_keep_their_wo() -> None:
    contents = " ".join(c.content for c in _close(["我喜欢唱《我的祖国》，也不怕做自我介绍。"]))
    assert "《我的祖国》" in contents and "自用户" not in contents


@pytest.mark.parametrize(
    "known, said, retired",
    [
        ("The user works at Stripe.", "People think I left Stripe but I didn't.", False),
        (
            "The user works at Stripe.",
            "Everyone assumes I quit Stripe; I didn't actually leave.",
            False,
        ),
        ("用户住在杭州。", "我没有搬到上海，还在杭州。", False),
        ("用户住在杭州。", "不是我搬到上海了，是我弟弟。", False),
        ("用户在阿里巴巴工作。", "帮我翻译：我现在在字节工作了。", False),
        ("The user works at Stripe.", "translate this to French: I just joined Google.", False),
        ("用户住在杭州。", "我搬到上海了，但我没有车。", True),
        ("The user lives in Berlin.", "I didn't get much sleep since we moved to Lisbon.", True),
    ],
)
def test_a_change_denied_or_given_to_translate_retires_nothing(
    known: str, said: str, retired: bool
) -> None:
    found = RuleExtractor().extract([{"role": "user", "content": said}], f"[k] {known}")
    assert any("k" in c.contradicts for c in found) == retired


@pytest.mark.parametrize(
    "known, said",
    [
        ("The user lives in Berlin.", "I moved to Lisbon last month but I haven't unpacked yet."),
        ("The user works at Stripe.", "I joined Shopify last week but I haven't met my team yet."),
        ("用户住在杭州。", "我搬到上海了，还没有搬完家具。"),
        ("用户在阿里巴巴工作。", "我入职腾讯了，之前从来没有跳槽过。"),
        ("用户是一名前端开发工程师", "我现在是产品经理了，下周去北京出差。"),
        (
            "The user lives in Berlin.",
            "We moved into the new Lisbon flat last week, my sister helped.",
        ),
        ("The user lives in Berlin.", "tl;dr: I moved to Lisbon and joined Shopify."),
        ("用户已经订婚了。", "我们去巴厘岛度蜜月了，海边太美了"),
        ("The user has no pets.", "My dog food bill doubled since we adopted Miso."),
    ],
)
def test_a_true_change_with_more_said_around_it_still_retires(known: str, said: str) -> None:
    found = RuleExtractor().extract([{"role": "user", "content": said}], f"[k] {known}")
    assert any("k" in c.contradicts for c in found)


@pytest.mark.parametrize(
    "lines, kept, dropped",
    [
        (["My birthday is June 2.", "Wait, it's June 20."], "June 20", "June 2."),
        (["我生日是6月2号。", "不对，是6月20号。"], "6月20", "6月2号"),
    ],
)
def test_a_value_said_again_alone_in_the_next_message_corrects(
    lines: list[str], kept: str, dropped: str
) -> None:
    contents = " ".join(c.content for c in _close(lines))
    assert kept in contents and dropped not in contents


@pytest.mark.parametrize(
    "known, said",
    [
        ("用户在阿里巴巴工作。", "我换工作了，现在在腾讯，没有辞职那么戏剧化。"),
        ("The user lives in Berlin.", "Imagine my surprise: I moved to Lisbon and love it."),
        (
            "The user lives in Berlin.",
            "Rewrite my bio: I moved to Lisbon last month and I design apps.",
        ),
    ],
)
def test_a_change_beside_words_of_denial_or_a_task_still_retires(known: str, said: str) -> None:
    found = RuleExtractor().extract([{"role": "user", "content": said}], f"[k] {known}")
    assert any("k" in c.contradicts for c in found)


def test_a_workplace_and_a_home_of_before_are_told_apart() -> None:
    works = [("job", "The user works at Brightline Media."), ("home", "The user lives in Exeter.")]
    assert replaced_by("I used to work at Brightline Media, long story.", works)[1] == ["job"]
    assert replaced_by("I used to live in Exeter, long story.", works)[1] == ["home"]

"""The English rules: what a user says explicitly about themselves, as memories.

Each rule is matched against one clause of the user's own words, from its start.
"""

from __future__ import annotations

import re

from .dates import WEEKDAYS, WHEN_EN
from .wording import Rule, agreeing_rest, sentence, third_person, verb_phrase

__all__ = ["RULES"]

_PRONOUN_OBJECTS = {"it", "that", "this", "them", "those", "these", "you", "so", "too"}
# Words that may stand between "I" and how the user feels ("I genuinely hate dill", "I
# absolutely love", "I kinda prefer"): up to two, any adverb in -ly among them.
_ADVERBS = (
    r"(?:(?:much|kinda|kind of|sort of|pretty much|just|still|so|also|too|"
    r"(?!(?:apply|reapply|reply|rely|supply|fly|ally|family|italy|july)\b)[a-z]{2,}ly) ){0,2}"
)
_PROFESSIONS = (
    "developer|engineer|designer|scientist|researcher|teacher|student|doctor|nurse|lawyer|"
    "manager|analyst|architect|writer|consultant|founder|programmer|accountant|professor"
)


def _en_rules() -> list[Rule]:
    flags = re.I

    def r(pattern: str) -> re.Pattern[str]:
        return re.compile(pattern, flags)

    return [
        (
            # "remember that ...", and the same asked without "that": "pls remember my son is
            # allergic to peanuts", "remember: I take my coffee black", "please remember for
            # next time: this repo uses conventional commits".
            r(
                r"^(?:please |pls |plz )?(?:remember|note|keep in mind|(?:write|note|jot|put) (?:it |this |that )?down|"
                r"make (?:a )?note(?: of)?|don'?t forget(?= that)|do not forget(?= that))"
                r"(?: (?:this )?for (?:next time|the future|later|future reference))?"
                r"(?: that |[:,] *| (?=(?:my|our|i'm|i am|i|we)\b))(?!to |when |how |what |why )"
                r"(.{6,})$"
            ),
            "explicit",
            "high",
            lambda m: sentence(third_person(m.group(1))),
        ),
        (
            r(r"^my name is ((?-i:[A-Z])[\w'-]*(?: (?-i:[A-Z])[\w'-]*)*)"),
            "fact",
            "high",
            lambda m: f"The user's name is {m.group(1)}.",
        ),
        (
            r(r"^(?:I am|I'm) called ((?-i:[A-Z])[\w'-]*)"),
            "fact",
            "high",
            lambda m: f"The user's name is {m.group(1)}.",
        ),
        (
            r(r"^I(?: currently)? work (?:at|for) (.{2,60}?)(?: as ((?:an? )?.{3,40}))?$"),
            "fact",
            "high",
            lambda m: sentence(
                f"The user works at {m.group(1)}" + (f" as {m.group(2)}" if m.group(2) else "")
            ),
        ),
        (
            # "I'm on the Android team at Kestrel Pay", "I'm on the platform team"
            r(
                r"^(?:I am|I'm) on the ([\w -]{2,30}?) team(?: at ((?-i:[A-Z])[\w&'-]*(?: (?-i:[A-Z])[\w&'-]*)*))?\b"
            ),
            "fact",
            "high",
            lambda m: sentence(
                f"The user is on the {m.group(1)} team"
                + (f" at {m.group(2)}" if m.group(2) else "")
            ),
        ),
        (
            # "I have two kids", "I've got a 3 year old beagle"
            r(
                r"^(?:I|we) (?:have|'ve got|have got|got) ((?:a|an|one|two|three|four|five|\d+) "
                r"(?:[\w-]+ ){0,3}(?:kids?|children|sons?|daughters?|dogs?|cats?|puppy|kitten|twins|"
                r"grandkids|grandchildren|brothers?|sisters?|siblings|toddlers?|newborn|baby|babies|"
                r"rabbits?|parrots?|hamsters?))\b(.{0,60})$"
            ),
            "fact",
            "medium",
            lambda m: sentence(f"The user has {m.group(1)}{_rest(m.group(2))}"),
        ),
        (
            # A turn of the user's life, said as news, with or without "I" ("I just found out
            # I'm pregnant", "just got a puppy", "got laid off today", "we adopted a rescue
            # cat", "I was diagnosed with ADHD", "we just got engaged").
            r(
                r"^(?:(?:so|ok|okay|well|guess what|big news|news)[,!:]* )?(?:(?:I|we) )?"
                r"(?:(?:just|finally|officially|recently|actually) )?"
                r"(?:(?:found out|learned|learnt) (?:that )?(?:I'm|I am|we're|we are) pregnant"
                r"|(?:(?<=I )am|(?<=we )are|(?<=^)(?:I'm|I am|we're|we are)) (?:\w+ (?:weeks|months) )?pregnant"
                r"|(?:got|adopted|brought home|rescued) (?:a|an|our|my|two) (?:new )?(?:[\w-]+ ){0,2}"
                r"(?:puppy|dog|kitten|cat|pup|rescue)"
                r"|(?:got|was|been|have been|'ve been) (?:laid off|let go|made redundant|fired(?! up))"
                r"|(?:got|are|'re) (?:engaged|married|divorced)"
                r"|(?:graduated|retired)(?: from| last| this| yesterday| today|$)"
                r"|(?:had|welcomed) (?:a|our) (?:baby|son|daughter|little)"
                r"|(?:was|got|been|have been|'ve been) diagnosed with)"
                r"\b([^!?]{0,80})"
            ),
            "fact",
            "high",
            lambda m: _life_event(m.group(0)),
        ),
        (
            r(r"^(?:I am|I'm) (\d{1,2})(?: years old| yo)?$"),
            "fact",
            "medium",
            lambda m: f"The user is {m.group(1)} years old.",
        ),
        (
            r(
                r"^I (?:speak|am fluent in|'m fluent in) ((?-i:[A-Z])[a-z]+(?:(?:,| and) (?-i:[A-Z])[a-z]+)*)\b(.{0,60})$"
            ),
            "skill_usage",
            "medium",
            lambda m: sentence(f"The user speaks {m.group(1)}{_rest(m.group(2))}"),
        ),
        (
            r(r"^(?:I am|I'm) (?:severely |very )?allergic to ([\w' -]{2,40})"),
            "fact",
            "high",
            lambda m: sentence(f"The user is allergic to {m.group(1).strip()}"),
        ),
        (
            # A lasting condition of the user's, said before what it is for ("I'm colorblind,
            # so...", "I'm type 1 diabetic so can you...").
            r(
                r"^(?:I am|I'm) (?:also |actually |severely |very )?((?:an? )?(?:type [12] )?"
                r"(?:diabetic|vegan|vegetarian|pescatarian|colou?r-?blind|dyslexic|left-handed|"
                r"deaf|hard of hearing|(?:lactose|gluten) intolerant|coeliac|celiac|autistic|"
                r"epileptic|asthmatic|sober|teetotal|introvert|extrovert|night owl|morning person|"
                r"short-sighted|near-?sighted))\b(?! (?:friend|friends|family|household)\b)"
            ),
            "fact",
            "high",
            lambda m: sentence(f"The user is {m.group(1)}"),
        ),
        (
            # The same condition said with no subject, as a reminder: "lactose intolerant
            # remember", "allergic to shellfish, remember?", "vegan btw".
            r(
                r"^((?:type [12] )?(?:diabetic|vegan|vegetarian|pescatarian|colou?r-?blind|"
                r"(?:lactose|gluten) intolerant|coeliac|celiac|teetotal|"
                r"(?:severely |deathly )?allergic to [\w' -]{2,30}?)),?\s+"
                r"(?:remember|as you know|btw|fyi|lol|haha)\b"
            ),
            "fact",
            "high",
            lambda m: sentence(f"The user is {m.group(1)}"),
        ),
        (
            # "I drive a 2012 Corolla", "I ride an old Vespa": the vehicle is the user's.
            r(
                r"^I (drive|ride) (an? (?:[\w'-]+ ){0,4}?[\w'-]+?)(?=,| and\b| so\b| but\b| with\b|$)"
            ),
            "fact",
            "medium",
            lambda m: sentence(f"The user {m.group(1)}s {m.group(2)}"),
        ),
        (
            # Where the user's workplace is: "our office is in Rotterdam".
            r(
                r"^(?:our|my) (office|company|studio|lab|workplace|team|school|campus) is"
                r" (?:based |located )?in ((?-i:[A-Z])[\w'-]*(?: (?-i:[A-Z])[\w'-]*){0,2})"
            ),
            "fact",
            "medium",
            lambda m: f"The user's {m.group(1).lower()} is in {m.group(2)}.",
        ),
        (
            # "I don't drink (so ...)": a habit of abstaining, said without an object.
            r(r"^I (?:don't|do not|never) (drink|smoke|drive)$"),
            "preference",
            "high",
            lambda m: f"The user doesn't {m.group(1)}.",
        ),
        (
            r(r"^I(?: currently)? live in (.{2,60})$"),
            "fact",
            "high",
            lambda m: sentence(f"The user lives in {m.group(1)}"),
        ),
        (
            r(r"^(?:I am|I'm) (?:based|located) in (.{2,60})$"),
            "fact",
            "high",
            lambda m: sentence(f"The user is based in {m.group(1)}"),
        ),
        (
            r(rf"^(?:I am|I'm) an? ((?:[\w-]+ ){{0,3}}(?:{_PROFESSIONS}))\b(.*)$"),
            "fact",
            "medium",
            lambda m: _profession(m),
        ),
        (
            r(
                r"^my (wife|husband|partner|son|daughter|dog|cat|boss|manager)(?:'s name)? is (?:called |named )?((?-i:[A-Z])[\w'-]*)"
            ),
            "fact",
            "medium",
            lambda m: f"The user's {m.group(1).lower()} is {m.group(2)}.",
        ),
        (
            r(
                r"^(we|I) (?:have |'ve )?decided to (?:use|go with|switch to|adopt|stick with) (.{2,80}?)(?: (?:instead of|rather than|over) (.{2,60}))?$"
            ),
            "decision",
            "high",
            lambda m: sentence(
                ("The team" if m.group(1).lower() == "we" else "The user")
                + f" decided to use {m.group(2)}"
                + (f" instead of {m.group(3)}" if m.group(3) else "")
            ),
        ),
        (
            # A choice said as the one made: "we're going with Postgres for the new service",
            # "we're going with Terraform over Pulumi for the new infra repo".
            r(
                r"^(we|I)(?:'re| are|'m| am|'ve| have)? (?:going with|gonna go with|settled on|"
                r"sticking with) ((?-i:[A-Z])[\w.+#-]*(?: (?-i:[A-Z])[\w.+#-]*)?)"
                r"(?: (?:over|instead of|rather than) ((?-i:[A-Z])[\w.+#-]*))?"
                r"(?: (?:for|on) (?:the |our |a |my )?([\w -]{3,40}?))?(?:[,;].*)?$"
            ),
            "decision",
            "high",
            lambda m: sentence(
                ("The team" if m.group(1).lower() == "we" else "The user")
                + f" decided to use {m.group(2)}"
                + (f" for the {m.group(4)}" if m.group(4) else "")
                + (f" instead of {m.group(3)}" if m.group(3) else "")
            ),
        ),
        (
            # What the user teaches: "i teach 4th grade", "I teach high school chemistry".
            r(
                r"^I (?:currently |still |now )?teach (?!myself|my |me |him |her |them |us )"
                r"((?:\w+ ){0,3}?(?:grade|school|class|classes|"
                r"kindergarten|preschool|chemistry|physics|biology|math|maths|english|history|"
                r"art|music|science|spanish|french|german|esl|yoga|piano|guitar|swimming|"
                r"at (?:a|an|the) [\w ]{3,30}))$"
            ),
            "fact",
            "medium",
            lambda m: f"The user teaches {m.group(1)}.",
        ),
        (
            # A race, a course or a class the user signed up for: "my news is i signed up for
            # the brooklyn half so i'll be leaving early", "just enrolled in a pottery course".
            r(
                r"^(?:(?:so|and|also|ok|okay|well|btw|my news is|big news|news)[,:]?\s+)?"
                r"(?:I|I've|I have|just)(?: just| finally| officially| actually)? "
                r"(signed up for|registered for|enrolled in) "
                # An event, a course or a club, not a newsletter, a trial or "it".
                r"((?:(?:the|a|an|my|our|another|two|three|\d+) )?(?:[\w'-]+ ){0,3}?"
                r"(?:race|marathon|half|10k|5k|triathlon|ultra|class|classes|course|courses|program|"
                r"programme|workshop|league|team|club|lessons|bootcamp|camp|conference|tour|"
                r"competition|tournament|challenge|retreat|ride|trek|hike|swim|degree|mba|"
                r"certification|exam)(?: (?:in|at|on|this|next) [\w' -]{2,30}?)?)"
                r"(?=$|[,.!;]| so | and | but | because | i )"
            ),
            "experience",
            "medium",
            lambda m: sentence(f"The user {m.group(1).lower()} {m.group(2).strip()}"),
        ),
        (
            r(
                rf"^(?:I need to|I have to|I must|I'm going to|I am going to|I will|I'll|I should|remind me to) (.{{3,80}}? {WHEN_EN}\b.*)$"
            ),
            "todo",
            "high",
            lambda m: sentence(f"The user needs to {third_person(m.group(1))}"),
        ),
        (
            r(
                rf"^({WHEN_EN}),? I (?:need to|have to|must|will|am going to|'m going to|have) (.{{3,80}})$"
            ),
            "todo",
            "high",
            lambda m: sentence(f"The user needs to {third_person(m.group(2))} {m.group(1)}"),
        ),
        (
            r(
                rf"^(every (?:morning|day|evening|night|week|weekday|weekend|{WEEKDAYS})|each (?:morning|day|week)),? I (.{{3,100}})$"
            ),
            "workflow",
            "medium",
            lambda m: sentence(f"{m.group(1)} the user {verb_phrase(m.group(2))}"),
        ),
        (
            # "I always prefer CTEs": a taste, however often it is said.
            r(
                r"^I (?:always|usually|normally|typically|generally) (prefer|like|love|enjoy) (.{2,100})$"
            ),
            "preference",
            "medium",
            lambda m: _preference_en(m),
        ),
        (
            # Not what the user always wants ("I always want type hints in any Python you
            # write for me"): a taste, left to the selector and its frames.
            r(r"^I (always|usually|normally|typically) (?!want\b|wants\b)(.{3,100})$"),
            "workflow",
            "medium",
            lambda m: sentence(f"The user {m.group(1).lower()} {verb_phrase(m.group(2))}"),
        ),
        (
            r(rf"^I {_ADVERBS}(prefer|like|love|enjoy) (.{{2,100}})$"),
            "preference",
            "medium",
            lambda m: _preference_en(m),
        ),
        (
            r(
                rf"^I {_ADVERBS}(hate|dislike|can't stand|cannot stand|don't like|do not like|"
                r"don't eat|do not eat|never eat|don't drink|do not drink|never drink) (.{2,100})$"
            ),
            "preference",
            "medium",
            lambda m: _preference_en(m),
        ),
    ]


def _life_event(said: str) -> str:
    """The news as a memory about the user, "I" put back where chat dropped it."""
    text = re.sub(r"^(?:(?:so|ok|okay|well|guess what|big news|news)[,!:]* )", "", said, flags=re.I)
    text = _CHAT_TAIL.sub("", text)
    if re.match(r"we\b", text, re.I):
        return f'The user said: "{text[0].upper()}{text[1:]}".'  # theirs and someone else's
    if not re.match(r"i\b", text, re.I):
        text = "I " + text[0].lower() + text[1:]
    return sentence(third_person(text))


# What chat puts after news: marks, emoji and words of feeling ("... puppy lol", "today :(").
_CHAT_TAIL = re.compile(
    r"(?:[\s,!?.:;()]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]|\b(?:lol|lmao|omg|omfg|haha+|ugh|wtf|"
    r"yay|woo+|fml|smh|tbh)\b)+$",
    re.I,
)


def _rest(text: str) -> str:
    """The rest of a clause after the part a rule read, about the user, with its space."""
    rest = agreeing_rest(third_person(text))
    return f" {rest}" if rest else ""


def _profession(match: re.Match[str]) -> str:
    """'I'm a nurse on night shifts' -> 'The user is a nurse on night shifts.' (the space and
    the article kept right)."""
    job, rest = match.group(1), agreeing_rest(third_person(match.group(2)))
    article = "an" if job[0].lower() in "aeiou" else "a"
    return sentence(f"The user is {article} {job}" + (f" {rest}" if rest else ""))


def _preference_en(match: re.Match[str]) -> str | None:
    verb, obj = match.group(1).lower(), match.group(2).strip().rstrip(".!")
    first = obj.split()[0].lower()
    if first in _PRONOUN_OBJECTS or (first in ("to", "it's", "that's") and verb != "prefer"):
        return None  # "I like that idea", "I love it": nothing to remember on its own
    verbs = {
        "prefer": "prefers",
        "like": "likes",
        "love": "loves",
        "enjoy": "enjoys",
        "hate": "hates",
        "dislike": "dislikes",
        "can't stand": "can't stand",
        "cannot stand": "can't stand",
        "don't like": "doesn't like",
        "do not like": "doesn't like",
        "don't eat": "doesn't eat",
        "do not eat": "doesn't eat",
        "never eat": "never eats",
        "don't drink": "doesn't drink",
        "do not drink": "doesn't drink",
        "never drink": "never drinks",
    }
    return sentence(f"The user {verbs[verb]} {third_person(obj)}")


RULES = _en_rules()

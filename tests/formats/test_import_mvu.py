"""MagVarUpdate `[InitVar]` variables and world-info books to trackers (issue 16 item 1)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from imported_fields import field_of

from trackerkit import ImportRefusedError, decode_tracker, encode_tracker
from trackerkit.formats import import_mvu
from trackerkit.formats.leaves import guess_range

FIXTURES = Path(__file__).parent / "fixtures"
INITVAR = FIXTURES / "mvu_initvar.yaml"
BOOK = FIXTURES / "mvu_lorebook.json"


class TestInitVar:
    """An `[InitVar]` entry's YAML content, as messy as real cards write it."""

    def test_report_lines(self) -> None:
        """Every source key has its line: exact, guessed (from what text) or unmapped (why)."""
        assert [str(line) for line in import_mvu(INITVAR).report.lines] == [
            "unmapped: strictSet: an MVU update option; trackerkit applies each batch all or nothing",
            "exact: 世界.当前时间 -> 世界.dang_qian_shi_jian: text; start and meaning from a [value, meaning] pair",
            "exact: 世界.当前位置 -> 世界.dang_qian_wei_zhi: text; start and meaning from a [value, meaning] pair",
            "exact: 世界.天气 -> 世界.tian_qi: text",
            "exact: 世界.是否夜晚 -> 世界.shi_fou_ye_wan: boolean; start and meaning from a [value, meaning] pair",
            'guessed: 世界.地点.雾港镇.码头.描述 -> 世界.di_dian_wu_gang_zhen_ma_tou_miao_shu: text; flattened from 4 levels as "地点.雾港镇.码头.描述"; start and meaning from a [value, meaning] pair',
            'guessed: 世界.地点.雾港镇.码头.人数 -> 世界.di_dian_wu_gang_zhen_ma_tou_ren_shu: number; min 0, max 40 guessed from "0到40"; flattened from 4 levels as "地点.雾港镇.码头.人数"; start and meaning from a [value, meaning] pair',
            'guessed: 世界.地点.雾港镇.灯塔.描述 -> 世界.di_dian_wu_gang_zhen_deng_ta_miao_shu: text; flattened from 4 levels as "地点.雾港镇.灯塔.描述"; start and meaning from a [value, meaning] pair',
            'guessed: 世界.地点.雾港镇.灯塔.已探索 -> 世界.di_dian_wu_gang_zhen_deng_ta_yi_tan_suo: boolean; flattened from 4 levels as "地点.雾港镇.灯塔.已探索"; start and meaning from a [value, meaning] pair',
            'guessed: 李.好感度 -> 李.hao_gan_du: number; min -30, max 100 guessed from "[-30,100]"; start and meaning from a [value, meaning] pair',
            "exact: 李.心情 -> 李.xin_qing: text; start and meaning from a [value, meaning] pair",
            'guessed: 李.信任 -> 李.xin_ren: number; min 0, max 100 guessed from "between 0 and 100"; start and meaning from a [value, meaning] pair',
            "exact: 李.affection_note -> 李.affection_note: text",
            "exact: 李.位置 -> 李.wei_zhi: text; start and meaning from a [value, meaning] pair",
            'guessed: 李.衣着 -> 李.yi_zhuo: text, guessed: a list of 3 plain values joined with ", "; start and meaning from a [value, meaning] pair',
            'guessed: 主角.生命值 -> 主角.sheng_ming_zhi: number, guessed: the range "[0,100]" in its meaning was not used: the start value 250 lies outside it; start and meaning from a [value, meaning] pair',
            "exact: 主角.金币 -> 主角.jin_bi: number",
            'unmapped: 主角.背包.$meta: schema flags of "主角 背包" (extensible=True): trackerkit fields are fixed by the tracker, and a keyed list takes new rows without a flag',
            "guessed: 主角.背包.* -> 主角 背包.quantity: number from 0, guessed: every entry maps a key to a number, read as a quantity",
            'unmapped: 主角.背包 row "J-35": a starting row (quantity=6), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'unmapped: 主角.背包 row "绷带": a starting row (quantity=2), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            "guessed: 主角.技能 -> 主角 技能.detail: text, guessed: an extensible array of plain items is keyed by the item; a text column was added because a row needs a field",
            'unmapped: 主角.技能 row "游泳": a starting row, not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'unmapped: 主角.技能 row "撬锁": a starting row, not kept: a list starts with no rows; the model or a person\'s edit adds it',
            "exact: 主角.同伴.*.关系 -> 主角 同伴.guan_xi: text; read from the rows",
            'guessed: 主角.同伴.*.好感 -> 主角 同伴.hao_gan: number; min 0, max 100 guessed from "0~100"; read from the rows',
            'unmapped: 主角.同伴 row "老周": a starting row (guan_xi="雇主", hao_gan=10), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'unmapped: 主角.同伴 row "阿绿": a starting row (guan_xi="朋友", hao_gan=40), not kept: a list starts with no rows; the model or a person\'s edit adds it',
            'unmapped: 任务列表.$meta: schema flags of "任务列表" (extensible=True): trackerkit fields are fixed by the tracker, and a keyed list takes new rows without a flag',
            'guessed: 任务列表.$meta.template.进度 -> 任务列表.jin_du: number; min 0, max 100 guessed from "[0,100]"; from the template; start and meaning from a [value, meaning] pair',
            "exact: 任务列表.$meta.template.已完成 -> 任务列表.yi_wan_cheng: boolean; from the template",
            'unmapped: 任务列表 row "寻找灯塔钥匙": a starting row (jin_du=10, yi_wan_cheng=false), not kept: a list starts with no rows; the model or a person\'s edit adds it',
        ]

    def test_trackers_and_links(self) -> None:
        """A record per top-level object, a keyed list per extensible object, linked in order."""
        imported = import_mvu(INITVAR)
        assert [(t.name, t.layout) for t in imported.trackers] == [
            ("世界", "record"),
            ("李", "record"),
            ("主角", "record"),
            ("主角 背包", "list"),
            ("主角 技能", "list"),
            ("主角 同伴", "list"),
            ("任务列表", "list"),
        ]
        assert imported.scene_links == tuple(t.id for t in imported.trackers)
        assert imported.scene_links[:3] == ("shi-jie", "li", "zhu-jue")

    def test_every_tracker_passes_the_strict_decoder(self) -> None:
        """TR-12: each tracker decodes from its own encoding, with TR-1 field names."""
        for tracker in import_mvu(INITVAR).trackers:
            assert decode_tracker(encode_tracker(tracker)) == tracker

    def test_range_guessed_from_prose(self) -> None:
        """`[-30,100]之间` becomes min -30, max 100; the per-turn range after it is not taken."""
        imported = import_mvu(INITVAR)
        assert field_of(imported, "李", "hao_gan_du") == {
            "name": "hao_gan_du",
            "description": "好感度: [-30,100]之间，李对主角的好感；每次变化范围为 [-5,8]",
            "type": "number",
            "min": -30,
            "max": 100,
            "default": 0,
        }

    def test_start_outside_the_written_range_keeps_no_range(self) -> None:
        """A start of 250 against `[0,100]` is kept; the range is reported as not used."""
        field = field_of(import_mvu(INITVAR), "主角", "sheng_ming_zhi")
        assert (field.get("min"), field.get("max"), field["default"]) == (None, None, 250)

    def test_value_description_object_and_list_value(self) -> None:
        """`{value, description}` is a leaf; a list value becomes one joined text."""
        imported = import_mvu(INITVAR)
        assert field_of(imported, "世界", "tian_qi")["default"] == "小雨"
        assert field_of(imported, "世界", "tian_qi")["description"] == "天气: 当前天气"
        assert field_of(imported, "李", "yi_zhuo")["default"] == "灰色斗篷, 皮靴, 银色发卡"

    def test_three_level_places_flatten_with_dotted_meaning(self) -> None:
        """Places nested three levels deep become dotted fields; the long text is the start."""
        field = field_of(import_mvu(INITVAR), "世界", "di_dian_wu_gang_zhen_ma_tou_miao_shu")
        assert str(field["description"]).startswith("地点.雾港镇.码头.描述: ")
        assert str(field["default"]).startswith("潮湿的木栈道")

    def test_template_gives_the_columns(self) -> None:
        """An extensible object's `$meta.template` is its column set, with starts."""
        imported = import_mvu(INITVAR)
        quests = next(t for t in imported.trackers if t.name == "任务列表")
        assert [f.name for f in quests.fields] == ["jin_du", "yi_wan_cheng"]


class TestBook:
    """A world-info book holding several `[InitVar]` entries, one of them broken."""

    def test_report_lines(self) -> None:
        """Lore entries and the broken entry are reported; JSON5 content is read."""
        assert [str(line) for line in import_mvu(BOOK).report.lines] == [
            'unmapped: entries[0] "世界观：雾港镇": not an [InitVar] entry (lore text, not variables)',
            'unmapped: entries[3] "[InitVar] 坏掉的条目": its content is not JSON, YAML or JSON5 '
            "(YAML: expected ',' or ']', but got '<stream end>' at line 1, column 11); "
            "MagVarUpdate itself loads no variable of a book while one of its [InitVar] entries "
            "cannot be read",
            'guessed: entries[1] "[InitVar] 角色变量": Li.affection -> Li.affection: number; min -30, max 100 guessed from "[-30,100]"; start and meaning from a [value, meaning] pair',
            'exact: entries[1] "[InitVar] 角色变量": Li.place -> Li.place: text; start and meaning from a [value, meaning] pair',
            'exact: entries[2] "[InitVar] 时间": 时间.日期 -> 时间.ri_qi: text; start and meaning from a [value, meaning] pair',
            'guessed: entries[2] "[InitVar] 时间": 时间.小时 -> 时间.xiao_shi: number; min 0, max 23 guessed from "0到23"; start and meaning from a [value, meaning] pair',
        ]

    def test_trackers(self) -> None:
        """Each readable entry's objects are trackers; the source text names them."""
        imported = import_mvu(BOOK)
        assert [t.name for t in imported.trackers] == ["Li", "时间"]
        assert imported.scene_links == ("li", "shi-jian")

    def test_card_book(self) -> None:
        """A character card's own book (`data.character_book.entries`, named by `name`) is read."""
        card = {
            "spec": "chara_card_v2",
            "data": {
                "name": "李",
                "character_book": {
                    "entries": [
                        {
                            "name": "[InitVar] 状态",
                            "content": "李:\n  体力: [80, '0到100']\n",
                            "keys": [],
                        },
                    ]
                },
            },
        }
        imported = import_mvu("li-card.json", orjson.dumps(card).decode())
        assert [str(line) for line in imported.report.lines] == [
            'guessed: entries[0] "[InitVar] 状态": 李.体力 -> 李.ti_li: number; min 0, max 100 '
            'guessed from "0到100"; start and meaning from a [value, meaning] pair',
        ]


def _book_of(*entries: tuple[str, str]) -> str:
    """A world-info book (JSON) of entries given as (name, content)."""
    book = {
        "entries": {
            str(i): {"uid": i, "comment": name, "key": [], "content": content}
            for i, (name, content) in enumerate(entries)
        }
    }
    return orjson.dumps(book).decode()


class TestAsMvuReadsEntries:
    """Entries read as MagVarUpdate reads them (a trial: `[initvar]` and fenced entries were
    skipped, and two entries holding `Li` made "Li" and "Li (2)")."""

    def test_name_in_any_case(self) -> None:
        """MVU matches `[InitVar]` in an entry's name whatever its case."""
        imported = import_mvu("book.json", _book_of(("[initvar] lower", "Hero:\n  hp: 10\n")))
        assert [t.name for t in imported.trackers] == ["Hero"]
        assert [str(line) for line in imported.report.lines] == [
            'exact: entries[0] "[initvar] lower": Hero.hp -> Hero.hp: number'
        ]

    def test_lower_case_book_is_told_as_mvu(self) -> None:
        """Such a book is told as MVU by its content, too."""
        from trackerkit.formats import detect_format

        assert detect_format("book.json", _book_of(("[INITVAR]", "Hero:\n  hp: 10\n"))) == "mvu"

    def test_code_fence_is_stripped(self) -> None:
        """Content in a ```yaml fence is read inside the fence, as MVU does."""
        text = _book_of(("[InitVar] fenced", '```yaml\nHero:\n  hp: [10, "0到20"]\n```'))
        imported = import_mvu("book.json", text)
        assert [t.name for t in imported.trackers] == ["Hero"]
        assert field_of(imported, "Hero", "hp")["default"] == 10
        assert not imported.report.of("unmapped")

    def test_entries_sharing_a_key_are_merged(self) -> None:
        """MVU merges every entry into one object: `Li` of two entries is one tracker, the
        later entry's value wins, and the value it replaced is reported, naming both."""
        imported = import_mvu(
            "book.json",
            _book_of(
                ("[InitVar] a", 'Li:\n  affection: [0, "[-30,100]"]\n  mood: calm\n'),
                ("[InitVar] b", 'Li:\n  place: church\n  affection: [10, "[-30,100]"]\n'),
            ),
        )
        (li,) = imported.trackers
        assert li.name == "Li"
        assert [f.name for f in li.fields] == ["affection", "mood", "place"]
        assert field_of(imported, "Li", "affection")["default"] == 10
        assert li.description == 'MVU variables "Li", merged from 2 [InitVar] entries as MVU does'
        assert [str(line) for line in imported.report.lines] == [
            'unmapped: entries[0] "[InitVar] a": Li.affection: its value was replaced by the one '
            'in entries[1] "[InitVar] b": MagVarUpdate merges every [InitVar] entry into one '
            "object, a later entry's value over an earlier one",
            'guessed: entries[1] "[InitVar] b": Li.affection -> Li.affection: number; min -30, '
            'max 100 guessed from "[-30,100]"; start and meaning from a [value, meaning] pair',
            'exact: entries[0] "[InitVar] a": Li.mood -> Li.mood: text',
            'exact: entries[1] "[InitVar] b": Li.place -> Li.place: text',
        ]

    def test_a_later_list_replaces_an_earlier_one(self) -> None:
        """Lists are replaced whole, not merged item by item (MVU's `correctlyMerge`); an
        object replaces a plain value and the other way round."""
        imported = import_mvu(
            "book.json",
            _book_of(
                ("[InitVar] a", "S:\n  tags: [a, b, c]\n  x: 1\n  y: {z: 1}\n"),
                ("[InitVar] b", "S:\n  tags: [d]\n  x: {w: 2}\n  y: 3\n"),
            ),
        )
        (s,) = imported.trackers
        assert {f.name: f.default for f in s.fields} == {"tags": "d", "x_w": 2, "y": 3}
        replaced = [line.source for line in imported.report.of("unmapped")]
        assert replaced == [
            'entries[0] "[InitVar] a": S.tags',
            'entries[0] "[InitVar] a": S.x',
            'entries[0] "[InitVar] a": S.y',
        ]

    def test_top_level_values_keep_their_entry(self) -> None:
        """Plain top-level values make a tracker per entry, named after it, as before."""
        imported = import_mvu(
            "book.json", _book_of(("[InitVar] 世界", "天气: 晴\n"), ("[InitVar] 李", "好感: 1\n"))
        )
        assert [t.name for t in imported.trackers] == ["世界", "李"]


class TestCardWithBoth:
    """A card holding trackerkit trackers and an MVU book (a trial: the book's [InitVar]
    entries got no report line)."""

    def test_book_entries_are_reported_with_the_way_to_import_them(self) -> None:
        from trackerkit import blank_tracker
        from trackerkit.formats import import_file
        from trackerkit.formats.card import export_card

        card = export_card([blank_tracker("scene", "Scene")], name="Émile")
        card["data"]["character_book"] = {
            "entries": [
                {"keys": [], "content": "lore", "comment": "lore", "name": "lore"},
                {"keys": [], "content": "Emile:\n  trust: 5\n", "comment": "[InitVar] vars"},
            ]
        }
        text = orjson.dumps(card).decode()
        imported = import_file("my card.json", None, text)
        assert [t.name for t in imported.trackers] == ["Scene"]
        assert [str(line) for line in imported.report.of("unmapped")] == [
            'unmapped: data.character_book.entries[1] "[InitVar] vars": an MVU [InitVar] entry, '
            "not imported: the card's trackerkit trackers were read instead; to import the "
            "book's MVU variables as trackers, run trackerkit import 'my card.json' --from mvu"
        ]
        assert [t.name for t in import_file("my card.json", "mvu", text).trackers] == ["Emile"]


class TestYaml12:
    """YAML read by the 1.2 core schema, as MVU's `yaml` package reads it (a trial: `12:30`
    became 750, `no` and `on` flags, `010` 8 and `1e3` text under PyYAML's 1.1 rules)."""

    def test_plain_scalars(self) -> None:
        text = _book_of(
            (
                "[InitVar] yaml",
                "状态:\n  gold: 1e3\n  answer: no\n  switch: on\n  clock: 12:30\n"
                "  octal: 010\n  oct: 0o17\n  hexv: 0x1F\n  flag: True\n  date: 2024-05-01\n",
            )
        )
        (state,) = import_mvu("book.json", text).trackers
        assert {f.name: (f.type, f.default) for f in state.fields} == {
            "gold": ("number", 1000),
            "answer": ("text", "no"),
            "switch": ("text", "on"),
            "clock": ("text", "12:30"),
            "octal": ("number", 10),
            "oct": ("number", 15),
            "hexv": ("number", 31),
            "flag": ("boolean", True),
            "date": ("text", "2024-05-01"),
        }


class TestTopLevelValues:
    """An entry's top-level plain values make a tracker that says what it holds (a trial: in
    `[InitVar] 背包` beside a `背包` object they became "背包 (2)", `MVU variables of "背包"`)."""

    @staticmethod
    def _book(content: dict[str, object], name: str = "[InitVar] 背包") -> str:
        entry = {"uid": 0, "comment": name, "key": [], "content": orjson.dumps(content).decode()}
        return orjson.dumps({"entries": {"0": entry}}).decode()

    @pytest.mark.parametrize(
        "content",
        [
            {"背包": {"$meta": {"extensible": True}, "绷带": 2}, "flag": True},
            {"flag": True, "背包": {"$meta": {"extensible": True}, "绷带": 2}},
            {"flag": True, "背包": {"金币": [5, "持有的金币"]}},
        ],
        ids=["object-first", "values-first", "record"],
    )
    def test_beside_an_object_of_the_entry_name(self, content: dict[str, object]) -> None:
        """The object keeps the name; the values' tracker is named and described as the
        entry's top-level values, whichever comes first in the entry."""
        imported = import_mvu("book.json", self._book(content))
        by_name = {t.name: t.description for t in imported.trackers}
        assert set(by_name) == {"背包", "背包 (top-level values)"}
        assert by_name["背包 (top-level values)"] == (
            'The top-level values of the entry "[InitVar] 背包", from MVU'
        )
        assert (
            'exact: entries[0] "[InitVar] 背包": flag -> 背包 (top-level values).flag: boolean'
            in [str(line) for line in imported.report.lines]
        )

    def test_alone_it_takes_the_entry_name(self) -> None:
        """With no other tracker of that name, the values' tracker is named after the entry."""
        imported = import_mvu("book.json", self._book({"flag": True}, "[InitVar] 状态"))
        assert [(t.name, t.description) for t in imported.trackers] == [
            ("状态", 'The top-level values of the entry "[InitVar] 状态", from MVU')
        ]

    def test_a_file_of_variables(self) -> None:
        """Variables outside a book: the values' tracker is named and described by the file."""
        imported = import_mvu("state.yaml", "flag: true\n")
        assert [(t.name, t.description) for t in imported.trackers] == [
            ("state", 'The top-level values of the file "state.yaml", from MVU')
        ]


class TestRefused:
    """Files that are no MVU variables are refused with one sentence naming the file."""

    @pytest.mark.parametrize(
        ("text", "reason"),
        [
            ("[1, 2, 3]", "is not MVU variables: an [InitVar] entry holds an object of variables"),
            ("just words", "holds no JSON, YAML or JSON5 object or list, so it holds no tracker"),
            (
                '{"entries": {"0": {"comment": "lore", "content": "x"}}}',
                "is a world-info book with no readable [InitVar] entry (an entry whose name holds [InitVar] and whose content is an object of variables)",
            ),
        ],
        ids=["list", "prose", "book-without-initvar"],
    )
    def test_refused(self, text: str, reason: str) -> None:
        """The error names the file and says why."""
        with pytest.raises(ImportRefusedError) as caught:
            import_mvu("card.yaml", text)
        assert str(caught.value) == f"card.yaml: {reason}"

    def test_missing_file(self, tmp_path: Path) -> None:
        """A file that is not there is named."""
        with pytest.raises(ImportRefusedError, match=r"nothing\.json: is not there$"):
            import_mvu(tmp_path / "nothing.json")


class TestGuessRange:
    """Ranges written in prose."""

    @pytest.mark.parametrize(
        ("text", "found"),
        [
            ("[-30,100]之间，变化范围为 [-5,8]", (-30, 100, "[-30,100]")),
            ("between 0 and 100: trust", (0, 100, "between 0 and 100")),
            ("码头上的人数，0到40之间", (0, 40, "0到40")),
            ("from 1.5 to 3 metres", (1.5, 3, "from 1.5 to 3")),
            ("【0，10】", (0, 10, "【0，10】")),
            ("[100,0] backwards", None),
            ("no range here", None),
        ],
        ids=["brackets", "between", "chinese-to", "from-to", "full-width", "backwards", "none"],
    )
    def test_guess(self, text: str, found: tuple[float, float, str] | None) -> None:
        """The first range written is the one taken, with its text."""
        assert guess_range(text) == found


KEYS = st.text(alphabet="abcXYZ_当前位置好感度 1", min_size=1, max_size=6).filter(
    lambda k: (
        k not in ("strictTemplate", "concatTemplateArray", "strictSet", "value", "description")
    )
)
LEAF = (
    st.booleans()
    | st.integers(min_value=-1000, max_value=1000)
    | st.text(max_size=10)
    | st.tuples(st.integers(-50, 50), st.sampled_from(["[-30,100]", "0到40", "meaning"])).map(list)
)
VARIABLES = st.recursive(
    LEAF, lambda inner: st.dictionaries(KEYS, inner, max_size=4), max_leaves=25
).filter(lambda v: isinstance(v, dict) and bool(v))


def _leaf_paths(node: object, path: tuple[str, ...]) -> list[str]:
    if isinstance(node, dict) and node:
        return [p for key, value in node.items() for p in _leaf_paths(value, (*path, key))]
    return [".".join(path)]


@given(VARIABLES)
def test_law_nothing_dropped_silently(variables: dict[str, object]) -> None:
    """Every leaf (or empty object) at any depth has exactly one line; each mapped one is a field."""
    imported = import_mvu("v.json", orjson.dumps(variables).decode())
    sources = [line.source for line in imported.report.lines]
    leaves = _leaf_paths(variables, ())
    assert sorted(s for s in sources if s in leaves) == sorted(leaves)
    # The only other lines are trackers left with no field, each named once.
    others = [line for line in imported.report.lines if line.source not in leaves]
    assert all(line.detail.startswith("no field of it") for line in others)
    fields = sum(len(t.fields) for t in imported.trackers)
    assert fields == sum(line.kind != "unmapped" for line in imported.report.lines)

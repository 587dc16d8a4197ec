"""Go calls a method through an interface it implements without saying so: logrus runs
`TextFormatter.Format` as `entry.Logger.Formatter.Format(entry)`, an edge to the interface's
`Formatter.Format`. `find_references` on the method names the interfaces whose methods it
implements (every method the interface declares is one of the type's, in its package) and that
have calls, with how many, and a next action asks for those calls; its own references are
unchanged. A type that lacks one of the interface's methods implements nothing there."""
from __future__ import annotations

from cruxe.refs import find_references
from cruxe.refs.find import next_actions

from support.repos import indexed_files

FORMATTER = '''\
package logrus

type Formatter interface {
	Format(*Entry) ([]byte, error)
	Name() string
}

type Entry struct {
	Logger *Logger
}

type Logger struct {
	Formatter Formatter
}

func (entry *Entry) write() {
	entry.Logger.Formatter.Format(entry)
}

func (entry *Entry) Bytes() ([]byte, error) {
	return entry.Logger.Formatter.Format(entry)
}
'''

TEXT = '''\
package logrus

type TextFormatter struct{}

func (f *TextFormatter) Format(entry *Entry) ([]byte, error) {
	return nil, nil
}

func (f *TextFormatter) Name() string {
	return "text"
}

type HalfFormatter struct{}

func (f *HalfFormatter) Format(entry *Entry) ([]byte, error) {
	return nil, nil
}
'''

TEST = '''\
package logrus

import "testing"

func TestText(t *testing.T) {
	f := &TextFormatter{}
	f.Format(&Entry{})
}
'''

FILES = {"go.mod": "module example.com/logrus\n\ngo 1.19\n", "logrus/formatter.go": FORMATTER,
         "logrus/text_formatter.go": TEXT, "logrus/text_formatter_test.go": TEST}


def test_a_go_method_names_the_interfaces_it_is_called_through(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "TextFormatter.Format")
    assert answer["references"] == []
    assert answer["test_references"] == [{"path": "logrus/text_formatter_test.go", "edge_type": "calls", "lines": [7]}]
    assert [(i["qualified_name"], i["path"], i["line_start"], i["calls"]) for i in answer["interfaces"]] == \
        [("logrus.Formatter.Format", "logrus/formatter.go", 4, 2)]
    action = next_actions({"symbol_name": "TextFormatter.Format"}, answer)[0]
    assert action["arguments"] == {"symbol_name": "logrus.Formatter.Format", "path": "logrus/formatter.go",
                                   "line": 4, "kind": "calls"}
    through = find_references(gen, repo, ref, **{k: v for k, v in action["arguments"].items() if k != "symbol_name"},
                              symbol_name=action["arguments"]["symbol_name"])
    assert [(r["path"], r["line_start"]) for r in through["references"]] == \
        [("logrus/formatter.go", 17), ("logrus/formatter.go", 21)]
    assert "interfaces" not in through  # an interface's own method: its calls are its references


def test_a_type_lacking_one_of_the_interfaces_methods_implements_nothing(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "HalfFormatter.Format")
    assert "interfaces" not in answer
    assert next_actions({"symbol_name": "HalfFormatter.Format"}, answer) == []


OBSERVER = '''\
export interface Observer<T> {
  next: (value: T) => void;
  complete(): void;
}
'''

OTHER_OBSERVER = '''\
export interface Observer<T> {
  next(value: T): void;
}
'''

SUBSCRIBER = '''\
import { Observer } from "./types";

export class Subscriber<T>
    implements Observer<T> {
  next(value: T): void {}
  complete(): void {}
}

export function emit<T>(destination: Observer<T>, value: T) {
  destination.next(value);
  destination.complete();
}
'''


def test_a_typescript_method_names_the_interface_its_class_implements(tmp_path):
    """A call on a value typed by the interface (`destination.next(v)`) is the interface
    member's; the class method that implements it names it. Only the `Observer` the class header
    reaches counts (another package's `Observer` is not it)."""
    files = {"src/types.ts": OBSERVER, "other/types.ts": OTHER_OBSERVER, "src/subscriber.ts": SUBSCRIBER}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    answer = find_references(gen, repo, ref, "Subscriber.next")
    assert answer["references"] == []
    assert [(i["qualified_name"], i["path"], i["calls"]) for i in answer["interfaces"]] == \
        [("types.Observer.next", "src/types.ts", 1)]
    complete = find_references(gen, repo, ref, "Subscriber.complete")
    assert [(i["path"], i["line_start"], i["calls"]) for i in complete["interfaces"]] == [("src/types.ts", 3, 1)]


LIB_RS = '''\
pub struct Text;

pub trait Named {
    fn name(&self) -> String;
}

impl Named for Text {
    fn name(&self) -> String {
        String::from("text")
    }
}

pub trait Formatter {
    fn format(&self) -> String;

    fn name(&self) -> String {
        String::new()
    }
}

impl Formatter for Text {
    fn format(&self) -> String {
        String::from("text")
    }
}

pub fn render(f: &dyn Formatter, n: &dyn Named) -> String {
    n.name();
    f.format()
}
'''


def test_a_rust_method_names_the_trait_method_its_impl_implements(tmp_path):
    """`impl Formatter for Text`: a call on a `&dyn Formatter` (or a generic bound by it) is the
    trait method's; `Text::format` names it. A trait's own default method implements nothing,
    whatever impl block is above its trait (`impl Named for Text`, whose `name` has a call)."""
    files = {"Cargo.toml": '[package]\nname = "fmtlib"\nversion = "0.1.0"\n', "src/lib.rs": LIB_RS}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    answer = find_references(gen, repo, ref, "Text::format")
    assert [(i["qualified_name"], i["line_start"], i["calls"]) for i in answer["interfaces"]] == \
        [("Formatter::format", 14, 1)]
    assert [i["qualified_name"] for i in find_references(gen, repo, ref, "Text::name")["interfaces"]] == \
        ["Named::name"]
    assert "interfaces" not in find_references(gen, repo, ref, "Formatter::name")

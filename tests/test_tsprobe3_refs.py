"""TypeScript references found wanting on ts-probe3 (issue 17, third user probe).

msgpack declares its codec's interface as a type alias of an object type (`export type
ExtensionCodecType<C> = { decode(...): unknown }`) and the decoder holds one in a typed field;
`this.extensionCodec.decode(...)` was left unresolved because only classes, interfaces, enums and
namespaces were searched for members."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import indexed_files

CODEC = '''\
export type CodecType<C> = {
  tryToEncode(object: unknown, context: C): Uint8Array | null;
  decode(data: Uint8Array, extType: number, context: C): unknown;
};

export type Alias = CodecType<undefined>;
'''

DECODER = '''\
import { CodecType } from "./codec";

export class Decoder<C = undefined> {
  private readonly codec: CodecType<C>;

  constructor(codec: CodecType<C>) {
    this.codec = codec;
  }

  decodeExtension(data: Uint8Array, type: number, context: C): unknown {
    return this.codec.decode(data, type, context);
  }

  encodeWith(codec: CodecType<C>, value: unknown, context: C) {
    return codec.tryToEncode(value, context);
  }
}
'''


def test_a_call_on_a_field_typed_by_an_object_type_alias_reaches_its_member(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/codec.ts": CODEC,
                                                                         "src/decoder.ts": DECODER})
    answer = find_references(gen, repo, ref, "CodecType.decode")
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("src/decoder.ts", 11)], answer
    answer = find_references(gen, repo, ref, "CodecType.tryToEncode")
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("src/decoder.ts", 15)], answer


SUBSCRIPTION = '''\
export type Teardown = Subscription | (() => void) | void;

export class Subscription {
  private parents: Subscription[] = [];

  hasParent(parent: Subscription): boolean {
    return this.parents.includes(parent);
  }

  add(teardown: Teardown): void {
    if (teardown instanceof Subscription && !teardown.hasParent(this)) {
      return;
    }
  }
}
'''


def test_a_receiver_typed_by_a_union_alias_keeps_the_name_based_resolution(tmp_path):
    # rxjs's `teardown: TeardownLogic` (a union): the alias has no members to look in, so the
    # call is resolved as it was before aliases were searched, by the method's unique name
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/subscription.ts": SUBSCRIPTION})
    answer = find_references(gen, repo, ref, "Subscription.hasParent")
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("src/subscription.ts", 11)], answer

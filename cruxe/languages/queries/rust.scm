; Rust: definitions and references, one pass over the tree (each pass walks the whole tree in
; C, and that walk, not the matching, is most of its cost). rust.py routes each match by its
; first capture (rust._READERS, `_common.by_reader`): every capture of one pattern must go to
; the same reader. Capture names are the contract with rust.py:
;   def        an item that is a definition, or an `impl` block (a scope, never a symbol)
;   use        the argument of a `use` declaration (rust.py flattens the tree into imports)
;   crate      the name of an `extern crate`
;   cname      the called name of a call or macro; crecv its receiver or path
;   fvalue     the value of a field access; fread the field's name
;   stype      the type a struct literal or pattern names; skey a field it names
;   mcall      a name before a token tree inside a macro's arguments; mattr an attribute's arguments
;   tref       a use of a named type; tpath, tscoped the path and name of `path::Type`
;   tparam     a generic type parameter; tdecl a name a type definition declares (not uses)
;   imacro     a macro called at item level (rust.py parses its `{ }` body again as items)

; ---- definitions
[(function_item) (function_signature_item) (struct_item) (union_item) (enum_item)
 (trait_item) (type_item) (associated_type) (const_item) (static_item) (mod_item)
 (macro_definition) (impl_item) (enum_variant)] @def
; a named field of a struct, a union or an enum's struct variant (a tuple's `.0` is none)
(field_declaration_list (field_declaration) @def)

; ---- macros called at item level: in a file, or in a `mod`, `impl`, `trait` or `extern` body
(source_file (macro_invocation) @imacro)
(declaration_list (macro_invocation) @imacro)

; ---- imports
(use_declaration argument: (_) @use)
(extern_crate_declaration name: (_) @crate)

; ---- calls: functions, methods, paths (`Foo::new`), turbofish calls and macros
(call_expression function: [
  (identifier) @cname
  (field_expression value: (_) @crecv field: (field_identifier) @cname)
  (scoped_identifier path: (_)? @crecv name: (identifier) @cname)
  (generic_function function: [
    (identifier) @cname
    (field_expression value: (_) @crecv field: (field_identifier) @cname)
    (scoped_identifier path: (_)? @crecv name: (identifier) @cname)])])
(macro_invocation macro: [
  (identifier) @cname
  (scoped_identifier path: (_)? @crecv name: (identifier) @cname)])

; ---- a field read or written (`x.f`, `self.a.b`): the receiver and the field; a method call's
; `x.f(..)` matches too, rust.py leaves out the names the call patterns above captured
(field_expression value: (_) @fvalue field: (field_identifier) @fread)
; a struct literal's or a struct pattern's field (`S { len: 1, g }`, `let S { len, .. } = s`): the
; type as written and the field's name
(struct_expression name: (_) @stype body: (field_initializer_list [
  (field_initializer field: (field_identifier) @skey)
  (shorthand_field_initializer (identifier) @skey)]))
(struct_pattern type: (_) @stype (field_pattern name: (_) @skey))

; ---- calls inside a macro's arguments (`write!(f, "{}", sep(x))`): a token tree is not parsed
; into expressions, so a name right before a token tree is a call when the tree opens with `(`
; (rust.py checks) and it lies outside an attribute's arguments (`#[cfg(all(unix))]`), also
; one written in a macro's tokens (`cfg_if! { if #[cfg(unix)] { .. } }`); a name before `::` is a
; turbofish call when `::<..>(` follows (rust.py checks: `assert_eq!(x & low_bits::<T>(), 0)`)
(token_tree (identifier) @mcall . (token_tree))
(token_tree (identifier) @mcall . "::")
(attribute (token_tree) @mattr)
(token_tree "#" . (token_tree . "[") @mattr)

; ---- uses of named types, and the names that are not uses
(type_identifier) @tref
(scoped_type_identifier path: (_) @tpath name: (type_identifier) @tscoped)
(type_parameter name: (type_identifier) @tparam)
[(struct_item name: (_) @tdecl) (union_item name: (_) @tdecl) (enum_item name: (_) @tdecl)
 (trait_item name: (_) @tdecl) (type_item name: (_) @tdecl) (associated_type name: (_) @tdecl)]

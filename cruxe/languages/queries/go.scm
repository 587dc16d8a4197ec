; Go: calls and uses of named types, one pass over the tree (go.py reads the matches).
; Definitions are not found here: only top-level declarations are definitions in Go, and go.py
; reads them from the file's direct children, each with its doc comment.
; Capture names are the contract with go.py:
;   callee     the called name; recv the receiver expression or package of a qualified callee
;   tref       a use of a named type
;   tdecl      the name a type spec or alias defines (not a use)
;   tpkg, tqual   the package and name of a qualified type (`pkg.T`)
;   lname      a local's name whose declaration may write its type: ltype the type written
;              (`var x *T`), lval the one value it is given (`x := T{}`, `p, err := newParser(src)`),
;              lrange what a range clause's value variable walks (`for _, m := range s.items`)
;   rop, rfield   a selector's operand and the name it selects, `x.f` (a field's read or write, a
;              method value; the callee of a call too, which go.py skips)
;   ktype, kfield   a struct literal's type and one of its keys, `T{Field: v}`

; ---- calls
(call_expression function: (identifier) @callee)
(call_expression function: (selector_expression operand: (_) @recv field: (field_identifier) @callee))
(call_expression function: (index_expression operand: (identifier) @callee))
(call_expression function: (index_expression
  operand: (selector_expression operand: (_) @recv field: (field_identifier) @callee)))
(call_expression function: (parenthesized_expression (identifier) @callee))
; The grammar reads an explicitly instantiated generic call `F[int](x)` as a conversion to a
; generic type; it is far more often a call, so these two count it as one.
(type_conversion_expression type: (generic_type type: (type_identifier) @callee))
(type_conversion_expression type: (generic_type
  type: (qualified_type package: (package_identifier) @recv name: (type_identifier) @callee)))

; ---- uses of named types (`var s Server`, `[]*pkg.Item`, `Point{1, 2}`, receivers, generics)
; The names type specs define and the package of a qualified type are captured too, so that
; go.py never asks a node for its parent (tree-sitter finds one by walking down from the root).
(type_identifier) @tref
(type_spec name: (type_identifier) @tdecl)
(type_alias name: (type_identifier) @tdecl)
(qualified_type package: (_) @tpkg name: (type_identifier) @tqual)

; ---- locals whose declaration may say their type (go.py `_typed_locals` reads the value):
; the first name of a `:=` or a `var` given one value, and every name of a `var` or a parameter
; with a type
(short_var_declaration left: (expression_list . (identifier) @lname) right: (expression_list . (_) @lval .))
(var_spec name: (identifier) @lname type: (_) @ltype)
(var_spec . name: (identifier) @lname !type value: (expression_list . (_) @lval .))
; the second of a range clause's two variables, an element of what it walks
(range_clause left: (expression_list . (_) . (identifier) @lname .) right: (_) @lrange)
; the parameters of a function, a method (not its receiver: the resolver reads that one) or a closure
(function_declaration parameters: (parameter_list (parameter_declaration name: (identifier) @lname type: (_) @ltype)))
(method_declaration parameters: (parameter_list (parameter_declaration name: (identifier) @lname type: (_) @ltype)))
(func_literal parameters: (parameter_list (parameter_declaration name: (identifier) @lname type: (_) @ltype)))

; ---- reads and writes of fields (`s.conn`, `o.opts.fast = true`) and struct literal keys
(selector_expression operand: (_) @rop field: (field_identifier) @rfield)
(composite_literal type: (_) @ktype body: (literal_value (keyed_element . (literal_element (identifier) @kfield))))
